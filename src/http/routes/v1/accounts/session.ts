/**
 * Sign-up, sign-in, the session and sign-out, and the links of account mail (address confirmation,
 * password reset). Sign-up, sign-in and the links are public (their own context, before auth);
 * the rest need the session itself. One message for "no such user" and "wrong password", and both
 * take a password check's time; a reset request answers the same, at once, whether or not the
 * address has a user, and its mail goes out afterwards.
 */
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountMail } from '../../../../accounts/account-mail.ts';
import { awaitsConfirmation } from '../../../../accounts/account-mail.ts';
import type { DeviceTokens } from '../../../../accounts/devices.ts';
import type { Account, User } from '../../../../accounts/ports.ts';
import type { ResumedSession } from '../../../../accounts/sessions.ts';
import {
  authenticate,
  changePassword,
  emailProblem,
  type FieldProblem,
  normalizeUserEmail,
  passwordProblem,
  signUp,
  type UserDeps,
} from '../../../../accounts/users.ts';
import type { AuditTrail, Change } from '../../../../audit/audit-trail.ts';
import { deviceTokenOf, setDeviceCookie } from '../../../device-cookie.ts';
import { ApiError, notSignedIn, validationFailed } from '../../../errors.ts';
import { userInitiator } from '../../../plugins/audit.ts';
import { type SessionAuth, sessionOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
import {
  type ConfirmBody,
  confirmBodySchema,
  type ResetBody,
  type ResetRequestBody,
  resetBodySchema,
  resetRequestBodySchema,
  sessionSettingsSchema,
} from '../../../schemas/account-mail.ts';
import {
  type PasswordChangeBody,
  passwordChangeBodySchema,
  type SigninBody,
  type SignupBody,
  signinBodySchema,
  signupBodySchema,
} from '../../../schemas/accounts.ts';
import { apiErrorResponses, plainResponse } from '../../../schemas/responses.ts';
import { clearSessionCookie, setSessionCookie } from '../../../session-cookie.ts';
import type { SignInThrottle } from '../../../sign-in-throttle.ts';

export interface SessionRoutesDeps {
  users: UserDeps['users'];
  accounts: UserDeps['accounts'] & { findAccount(id: string): Promise<Account | null> };
  sessions: SessionAuth;
  throttle: SignInThrottle;
  /** MAILVET_SIGNUP. */
  signup: 'open' | 'closed';
  /** The plan new sign-ups are on. */
  plan: string;
  /** Signs the cookie of browsers that signed in before (spared the per-address sign-in lock). */
  devices: DeviceTokens;
  /** Confirmation and reset links; absent without a mail relay. */
  accountMail?: AccountMail;
  /** Records sign-ins (and failed ones), sign-ups, sign-outs and password changes. */
  audit?: AuditTrail | undefined;
}

const WRONG_CREDENTIALS = 'Wrong email or password';
const INVALID_LINK = 'This link is not valid any more (used, expired or replaced by a newer one)';
const noBody = (description: string) => ({ description, type: 'null' }) as const;

/** POST /signup and POST /session, the links and the signed-out pages' settings: no authentication. */
export const publicSessionRoutes: FastifyPluginAsync<SessionRoutesDeps> = async (app, deps) => {
  app.get(
    '/session/settings',
    {
      schema: {
        tags: ['accounts'],
        summary: 'What the signed-out pages offer: sign-up, password reset',
        response: { 200: { description: 'The settings.', ...sessionSettingsSchema } },
      },
    },
    async () => ({ signup: deps.signup, password_reset: deps.accountMail !== undefined }),
  );

  await app.register(async (posts) => {
    await posts.register(jsonBodyPlugin);
    registerSignUpAndIn(posts, deps);
    registerLinks(posts, deps);
  });
};

function registerSignUpAndIn(app: Parameters<FastifyPluginAsync>[0], deps: SessionRoutesDeps): void {
  app.post<{ Body: SignupBody }>(
    '/signup',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Create an account and its owner, and sign in',
        body: signupBodySchema,
        response: {
          201: plainResponse('Session', 'Signed in: the session cookie is set.'),
          ...apiErrorResponses({
            400: ['bad_request'],
            403: ['signup_closed'],
            409: ['conflict'],
            422: ['validation_failed'],
            429: ['rate_limited'],
          }),
        },
      },
    },
    async (request, reply) => {
      if (deps.signup === 'closed') throw new ApiError('signup_closed');
      const { email, password, account_name: accountName } = request.body;
      const problems = [emailProblem(email), passwordProblem(password)].filter(isProblem);
      if (problems.length > 0) throw validationFailed(problems);
      await deps.throttle.signUp(request.ip);
      const mail = deps.accountMail;
      const outcome = await signUp(deps, {
        email,
        password,
        accountName,
        plan: deps.plan,
        unconfirmed: mail !== undefined,
      });
      if (outcome.kind === 'taken') {
        throw new ApiError('conflict', {
          message: 'An account with this email already exists: sign in instead',
          errors: [{ field: 'email', message: 'An account with this email already exists' }],
        });
      }
      // The relay's pace is not the sign-up's: a slow or failing relay leaves the person signed in,
      // and the dashboard's banner can send the link again.
      if (mail !== undefined)
        inBackground(request.log, 'confirmation link', () => mail.sendConfirmation(outcome.user));
      await recordAs(deps, outcome.user, request.ip, {
        action: 'account.created',
        targetId: outcome.account.id,
        details: { name: outcome.account.name, plan: outcome.account.plan, owner: outcome.user.email },
      });
      reply.code(201);
      return startSession(deps, reply, outcome.user, outcome.account);
    },
  );

  app.post<{ Body: SigninBody }>(
    '/session',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Sign in',
        body: signinBodySchema,
        response: {
          200: plainResponse('Session', 'Signed in: the session cookie is set.'),
          ...apiErrorResponses({
            400: ['bad_request'],
            401: ['unauthorized'],
            422: ['validation_failed'],
            429: ['rate_limited'],
          }),
        },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const address = normalizeUserEmail(email);
      await deps.throttle.signIn(address, request.ip, {
        knownDevice: await isKnownDevice(deps, request, address),
      });
      const user = await authenticate(deps.users, email, password);
      const account = user === null ? null : await deps.accounts.findAccount(user.accountId);
      if (user === null || account === null) {
        recordFailedSignIn(deps, request, address);
        throw notSignedIn(WRONG_CREDENTIALS);
      }
      const session = await startSession(deps, reply, user, account);
      await recordAs(deps, user, request.ip, { action: 'user.signed_in', targetId: user.id });
      return session;
    },
  );
}

function registerLinks(app: Parameters<FastifyPluginAsync>[0], deps: SessionRoutesDeps): void {
  app.post<{ Body: ConfirmBody }>(
    '/session/confirm',
    {
      schema: {
        tags: ['accounts'],
        summary: "Confirm a user's address with the token of the link emailed at sign-up",
        body: confirmBodySchema,
        response: {
          204: noBody('Confirmed: the account may verify.'),
          ...apiErrorResponses({
            400: ['bad_request'],
            404: ['not_found'],
            422: ['validation_failed'],
            429: ['rate_limited'],
          }),
        },
      },
    },
    async (request, reply) => {
      const mail = mailOrNotFound(deps);
      await deps.throttle.linkUse(request.ip);
      const confirmed = await mail.confirm(request.body.token);
      if (confirmed === null) {
        throw validationFailed([{ field: 'token', message: `${INVALID_LINK}: sign in to send a new one` }]);
      }
      await recordAs(deps, confirmed, request.ip, { action: 'user.email_confirmed', targetId: confirmed.id });
      reply.code(204);
    },
  );

  app.post<{ Body: ResetRequestBody }>(
    '/session/password-reset',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Email a password-reset link to the address, if a user has it',
        body: resetRequestBodySchema,
        response: {
          202: noBody('Taken: the same answer whether or not a user has the address.'),
          ...apiErrorResponses({
            400: ['bad_request'],
            404: ['not_found'],
            422: ['validation_failed'],
            429: ['rate_limited'],
          }),
        },
      },
    },
    async (request, reply) => {
      const mail = mailOrNotFound(deps);
      const problem = emailProblem(request.body.email);
      if (problem !== null) throw validationFailed([problem]);
      const address = normalizeUserEmail(request.body.email);
      await deps.throttle.passwordReset(address, request.ip);
      // After the answer is on its way: whether the address has a user shows in neither the answer
      // nor its time.
      setImmediate(() => inBackground(request.log, 'password-reset link', () => mail.requestReset(address)));
      reply.code(202);
    },
  );

  app.post<{ Body: ResetBody }>(
    '/session/password-reset/confirm',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Set a new password with the token of a reset link; every session of the user ends',
        body: resetBodySchema,
        response: {
          204: noBody('Set: sign in with the new password.'),
          ...apiErrorResponses({
            400: ['bad_request'],
            404: ['not_found'],
            422: ['validation_failed'],
            429: ['rate_limited'],
          }),
        },
      },
    },
    async (request, reply) => {
      const mail = mailOrNotFound(deps);
      // A weak password is told before the link is used up.
      const weak = passwordProblem(request.body.password);
      if (weak !== null) throw validationFailed([weak]);
      await deps.throttle.linkUse(request.ip);
      const reset = await mail.resetPassword(request.body.token, request.body.password);
      if (reset === null) {
        throw validationFailed([{ field: 'token', message: `${INVALID_LINK}: ask for a new one` }]);
      }
      await recordAs(deps, reset, request.ip, { action: 'user.password_reset', targetId: reset.id });
      reply.code(204);
    },
  );
}

/** GET and DELETE /session, POST /account/password, POST /session/confirm/resend: the session's own routes. */
export const sessionRoutes: FastifyPluginAsync<SessionRoutesDeps> = async (app, deps) => {
  const sessionErrors = apiErrorResponses({ 401: ['unauthorized'], 403: ['forbidden'] });
  app.get(
    '/session',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The signed-in user, the account and the CSRF token',
        security: [{ sessionCookie: [] }],
        response: { 200: plainResponse('Session', 'The session.'), ...sessionErrors },
      },
    },
    async (request) => {
      const resumed = sessionOf(request);
      const account = await deps.accounts.findAccount(resumed.user.accountId);
      if (account === null) throw notSignedIn('The session has ended: sign in again');
      return sessionView(deps, resumed, account);
    },
  );

  app.delete(
    '/session',
    {
      config: { beforeConfirmation: true },
      schema: {
        tags: ['accounts'],
        summary: 'Sign out',
        security: [{ sessionCookie: [] }],
        response: {
          204: { description: 'Signed out; the cookie is cleared.', type: 'null' },
          ...sessionErrors,
        },
      },
    },
    async (request, reply) => {
      const { session, user } = sessionOf(request);
      await deps.sessions.manager.end(session.id);
      await recordAs(deps, user, request.ip, { action: 'user.signed_out', targetId: user.id });
      clearSessionCookie(reply, deps.sessions.secureCookie);
      reply.code(204);
    },
  );

  app.post(
    '/session/confirm/resend',
    {
      config: { beforeConfirmation: true },
      schema: {
        tags: ['accounts'],
        summary: 'Email the link that confirms the address again (an earlier one stops working)',
        security: [{ sessionCookie: [] }],
        response: {
          202: noBody('The relay took the message.'),
          ...apiErrorResponses({
            401: ['unauthorized'],
            403: ['forbidden'],
            404: ['not_found'],
            409: ['conflict'],
            429: ['rate_limited'],
            502: ['provider_unavailable'],
          }),
        },
      },
    },
    async (request, reply) => {
      const { user } = sessionOf(request);
      const mail = deps.accountMail;
      if (mail === undefined)
        throw new ApiError('not_found', { message: 'This server sends no email: there is no link to send' });
      if (user.emailConfirmedAt !== null)
        throw new ApiError('conflict', { message: 'Your email address is confirmed already' });
      await deps.throttle.confirmationResend(user.id);
      try {
        await mail.sendConfirmation(user);
      } catch (error) {
        request.log.error({ err: error }, 'confirmation link not sent');
        throw new ApiError('provider_unavailable', {
          message: 'The mail relay did not take the message: try again in a few minutes',
        });
      }
      reply.code(202);
    },
  );

  app.register(async (changes) => {
    await changes.register(jsonBodyPlugin);
    changes.post<{ Body: PasswordChangeBody }>(
      '/account/password',
      {
        config: { beforeConfirmation: true },
        schema: {
          tags: ['accounts'],
          summary: 'Change the password; every other session of the user ends',
          security: [{ sessionCookie: [] }],
          body: passwordChangeBodySchema,
          response: {
            204: { description: 'Changed.', type: 'null' },
            ...apiErrorResponses({
              400: ['bad_request'],
              401: ['unauthorized'],
              403: ['forbidden'],
              422: ['validation_failed'],
            }),
          },
        },
      },
      async (request, reply) => {
        const resumed = sessionOf(request);
        const weak = passwordProblem(request.body.new_password, 'new_password');
        if (weak !== null) throw validationFailed([weak]);
        const outcome = await changePassword(deps.users, resumed.user, {
          currentPassword: request.body.current_password,
          newPassword: request.body.new_password,
          keepSessionId: resumed.session.id,
        });
        if (outcome === 'wrong_password') {
          throw validationFailed([
            { field: 'current_password', message: 'This is not your current password' },
          ]);
        }
        await recordAs(deps, resumed.user, request.ip, {
          action: 'user.password_changed',
          targetId: resumed.user.id,
        });
        reply.code(204);
      },
    );
  });
};

/**
 * The links' routes without a relay: a 404 that says why. (Nothing waits for confirmation then,
 * and no link was sent.)
 */
function mailOrNotFound(deps: SessionRoutesDeps): AccountMail {
  if (deps.accountMail !== undefined) return deps.accountMail;
  throw new ApiError('not_found', {
    message:
      'This server sends no email, so it has no emailed links (password reset, confirmation): ask its operator',
  });
}

/**
 * Whether the request comes from a browser the address's user signed in with before: its device
 * cookie is genuine and names that user. Looked up only when such a cookie comes along.
 */
async function isKnownDevice(
  deps: SessionRoutesDeps,
  request: FastifyRequest,
  address: string,
): Promise<boolean> {
  const deviceUser = deps.devices.userOf(deviceTokenOf(request));
  if (deviceUser === null) return false;
  return (await deps.users.findUserByEmail(address))?.id === deviceUser;
}

/** Records a change the user made, in their account's log. */
async function recordAs(deps: SessionRoutesDeps, user: User, ip: string, change: Change): Promise<void> {
  await deps.audit?.record(user.accountId, userInitiator(user, ip), change);
}

/**
 * Records a failed sign-in in the account of the address's user; an address with no user has no
 * account to record it in. After the answer, so that a known address answers in the time of an
 * unknown one; a failure to record is logged.
 */
function recordFailedSignIn(deps: SessionRoutesDeps, request: FastifyRequest, address: string): void {
  const { audit } = deps;
  if (audit === undefined) return;
  const ip = request.ip;
  setImmediate(() =>
    inBackground(request.log, 'failed sign-in audit entry', async () => {
      const user = await deps.users.findUserByEmail(address);
      if (user === null) return;
      await audit.record(user.accountId, userInitiator(user, ip), {
        action: 'user.sign_in_failed',
        targetId: user.id,
        details: { reason: 'wrong_password' },
      });
    }),
  );
}

/** Runs mail work after the answer; a failure is logged (the relay's credentials never are). */
function inBackground(log: FastifyBaseLogger, what: string, work: () => Promise<void>): void {
  work().catch((error: unknown) => log.error({ err: error }, `${what} not sent`));
}

async function startSession(deps: SessionRoutesDeps, reply: FastifyReply, user: User, account: Account) {
  const started = await deps.sessions.manager.start(user);
  setSessionCookie(reply, started.token, deps.sessions.secureCookie);
  setDeviceCookie(reply, deps.devices.issue(user.id), deps.sessions.secureCookie);
  return sessionView(deps, { session: started.session, user, extended: false }, account);
}

function sessionView(deps: SessionRoutesDeps, resumed: ResumedSession, account: Account) {
  return {
    user: {
      id: resumed.user.id,
      email: resumed.user.email,
      created_at: resumed.user.createdAt,
      operator: resumed.user.operator,
      awaiting_confirmation: awaitsConfirmation(resumed.user, deps.sessions.confirmationRequired === true),
    },
    account: { id: account.id, name: account.name, plan: account.plan },
    csrf_token: deps.sessions.manager.csrfToken(resumed.session),
  };
}

function isProblem(problem: FieldProblem | null): problem is FieldProblem {
  return problem !== null;
}
