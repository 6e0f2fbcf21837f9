/**
 * GET /api/v1/doctor: the probe host's health (the `mailvet doctor` report) for operators (users
 * the CLI marked `--operator`) signed in to the dashboard. Anyone else, and any API key, gets 404
 * as for any unknown thing: the route's existence tells nothing.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DoctorAccess } from '../../../doctor/doctor-service.ts';
import { reportJson } from '../../../doctor/finding.ts';
import { ApiError } from '../../errors.ts';
import { doctorQuerySchema, doctorReportSchema } from '../../schemas/doctor.ts';
import { accountingHeaders, apiErrorResponses } from '../../schemas/responses.ts';

const security: Array<Record<string, string[]>> = [{ sessionCookie: [] }];
const errors = apiErrorResponses({
  401: ['unauthorized'],
  404: ['not_found'],
  429: ['rate_limited'],
  500: ['internal_error'],
});

export const doctorRoutes: FastifyPluginAsync<DoctorAccess> = async (app, { service }) => {
  app.get<{ Querystring: { refresh?: '0' | '1' } }>(
    '/doctor',
    {
      schema: {
        tags: ['accounts'],
        summary: "The probe host's health (operators only)",
        description:
          'The last `mailvet doctor` report: port 25, egress address, HELO, reverse DNS, blocklists, SPF, resolver. Made at most once a minute; `refresh=1` runs it again (at most once every 10 s). 404 for anyone but an operator (a user marked by `mailvet users update ID --operator`).',
        security,
        querystring: doctorQuerySchema,
        response: {
          200: { description: 'The report.', headers: accountingHeaders, ...doctorReportSchema },
          ...errors,
        },
      },
      // Before validation: a bad query string from anyone else is a 404 too, never a 422.
      preValidation: async (request) => {
        if (request.session?.user.operator !== true) throw new ApiError('not_found');
      },
    },
    async (request) => reportJson(await service.report(request.query.refresh === '1')),
  );
};
