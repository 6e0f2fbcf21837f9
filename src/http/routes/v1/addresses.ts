/**
 * DELETE /api/v1/addresses/{email}: erases the address from everything the caller's account holds
 * (list rows and results, feedback, cached results), matched as the verifier normalises it, and
 * answers what was erased. With a key or a session. Erasing twice answers zeros.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ErasureService } from '../../../privacy/erasure.ts';
import { callerOf } from '../../plugins/auth.ts';
import { authedErrorResponses } from '../../schemas/responses.ts';

export interface AddressRoutesDeps {
  erasure: Pick<ErasureService, 'eraseAddress'>;
}

const count = { type: 'integer', minimum: 0 } as const;

export const addressRoutes: FastifyPluginAsync<AddressRoutesDeps> = async (app, { erasure }) => {
  app.delete<{ Params: { email: string } }>(
    '/addresses/:email',
    {
      schema: {
        tags: ['accounts'],
        summary: "Erases an address from the account's data",
        description:
          "Removes the address, matched as the verifier normalises it (the domain in any case, the local part as written), from the account's lists (each of its rows stays, counted, with its address and other columns replaced by `[erased]` and empty cells, its result deleted), its feedback events, the account's cached context and the shared result cache. The audit log records `address.erased` with a keyed hash of the address, never the address.",
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
        params: {
          type: 'object',
          required: ['email'],
          properties: { email: { type: 'string', minLength: 3, maxLength: 1024 } },
        },
        response: {
          200: {
            description: 'What was erased.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['erased'],
                  properties: {
                    erased: {
                      type: 'object',
                      required: ['list_rows', 'feedback', 'cached'],
                      properties: { list_rows: count, feedback: count, cached: count },
                    },
                  },
                },
              },
            },
          },
          ...authedErrorResponses({ 422: ['validation_failed'] }),
        },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      const erased = await erasure.eraseAddress(accountId, request.params.email, await request.initiator());
      return { erased };
    },
  );
};
