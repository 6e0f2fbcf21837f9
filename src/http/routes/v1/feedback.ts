/**
 * POST /api/v1/feedback and /api/v1/feedback/bulk: the sender's real outcomes for
 * its account. Free (no verification is charged), rate-limited like every route and paced besides
 * (`MAILVET_FEEDBACK_REQUESTS_PER_SECOND` per account, 429), and bounded per account: past its
 * plan's stored events a request is refused whole (413).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { SubmittedEvent } from '../../../feedback/feedback-address.ts';
import type { FeedbackService, SubmitOutcome } from '../../../feedback/feedback-service.ts';
import { ApiError, rateLimited, validationFailed } from '../../errors.ts';
import { callerOf } from '../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../plugins/json-body.ts';
import {
  type FeedbackBulkBody,
  type FeedbackEventBody,
  feedbackBodySchema,
  feedbackBulkBodySchema,
} from '../../schemas/feedback.ts';
import { authedErrorResponses, okResponse } from '../../schemas/responses.ts';

export interface FeedbackRoutesDeps {
  feedback: Pick<FeedbackService, 'submit'>;
}

const tags = ['feedback'];
// A key, or the dashboard's session (with its CSRF token), as on every /api/v1 route.
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sessionCookie: [] }];
const responses = {
  200: okResponse('FeedbackRecorded', 'Recorded: how many events were new, and how many were known.'),
  ...authedErrorResponses({
    400: ['bad_request'],
    413: ['storage_limit_reached'],
    422: ['validation_failed'],
  }),
};

/** The feedback routes. */
export const feedbackRoutes: FastifyPluginAsync<FeedbackRoutesDeps> = async (app, { feedback }) => {
  await app.register(jsonBodyPlugin);

  app.post<{ Body: FeedbackEventBody }>(
    '/feedback',
    {
      schema: {
        tags,
        security,
        summary: 'Record a sending outcome of one address',
        description:
          'A `hard_bounce` makes the address INVALID with reason `bounced` for this account only, until a ' +
          '`delivered` at a later instant. Charges no verification.',
        body: feedbackBodySchema,
        response: responses,
      },
    },
    async (request) => {
      const { accountId, limits } = callerOf(request);
      const outcome = await feedback.submit(accountId, [eventOf(request.body)], limits.maxFeedbackEvents);
      return answer(outcome, (problem) => problem.field);
    },
  );

  app.post<{ Body: FeedbackBulkBody }>(
    '/feedback/bulk',
    {
      schema: {
        tags,
        security,
        summary: 'Record up to 10,000 sending outcomes',
        description:
          'All or nothing: an event that is not valid (each one named by its index) or a request that would ' +
          'take the account past its stored events refuses the whole request. Charges no verification.',
        body: feedbackBulkBodySchema,
        response: responses,
      },
    },
    async (request) => {
      const { accountId, limits } = callerOf(request);
      const events = request.body.events.map(eventOf);
      const outcome = await feedback.submit(accountId, events, limits.maxFeedbackEvents);
      return answer(outcome, (problem) => `events[${problem.index}].${problem.field}`);
    },
  );
};

/** Only the known fields: the rest of the body is ignored. */
function eventOf(body: FeedbackEventBody): SubmittedEvent {
  return { email: body.email, event: body.event, ...(body.at !== undefined && { at: body.at }) };
}

function answer(
  outcome: SubmitOutcome,
  fieldOf: (problem: { index: number; field: string }) => string,
): { recorded: number; duplicates: number } {
  if (outcome.kind === 'invalid') {
    throw validationFailed(
      outcome.problems.map((problem) => ({ field: fieldOf(problem), message: problem.message })),
    );
  }
  if (outcome.kind === 'rate_limited') throw rateLimited(outcome.decision);
  if (outcome.kind === 'full') {
    throw new ApiError('storage_limit_reached', {
      message:
        `The account holds ${outcome.stored.toLocaleString('en')} feedback events; ` +
        `this request would take it past the ${outcome.maxEvents.toLocaleString('en')} it may keep`,
    });
  }
  return { recorded: outcome.recorded, duplicates: outcome.duplicates };
}
