/**
 * Sign-up, sign-in, the session and sign-out (DESIGN §3.2). Sign-up and sign-in are public (their
 * own context, before auth); the rest need the session itself. One message for "no such user"
 * and "wrong password", and both take a password check's time.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Account, User } from '../../../../accounts/ports.ts';
import type { ResumedSession, SessionManager } from '../../../../accounts/sessions.ts';
import {
  authenticate,
  changePassword,
  emailProblem,
  type FieldProblem,
  passwordProblem,
  signUp,
  type UserDeps,
} from '../../../../accounts/users.ts';
import { ApiError, notSignedIn, validationFailed } from '../../../errors.ts';
import { type SessionAuth, sessionOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
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
}

const WRONG_CREDENTIALS = 'Wrong email or password';

/** POST /signup and POST /session: no authentication. */
export const publicSessionRoutes: FastifyPluginAsync<SessionRoutesDeps> = async (app, deps) => {
  await app.register(jsonBodyPlugin);
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
      const outcome = await signUp(deps, { email, password, accountName, plan: deps.plan });
      if (outcome.kind === 'taken') {
        throw new ApiError('conflict', {
          message: 'An account with this email already exists: sign in instead',
          errors: [{ field: 'email', message: 'An account with this email already exists' }],
        });
      }
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
      await deps.throttle.signIn(email.trim().toLowerCase(), request.ip);
      const user = await authenticate(deps.users, email, password);
      const account = user === null ? null : await deps.accounts.findAccount(user.accountId);
      if (user === null || account === null) throw notSignedIn(WRONG_CREDENTIALS);
      return startSession(deps, reply, user, account);
    },
  );
};

/** GET and DELETE /session, POST /account/password: the session's own routes. */
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
      return sessionView(deps.sessions.manager, resumed, account);
    },
  );

  app.delete(
    '/session',
    {
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
      await deps.sessions.manager.end(sessionOf(request).session.id);
      clearSessionCookie(reply, deps.sessions.secureCookie);
      reply.code(204);
    },
  );

  app.register(async (changes) => {
    await changes.register(jsonBodyPlugin);
    changes.post<{ Body: PasswordChangeBody }>(
      '/account/password',
      {
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
        reply.code(204);
      },
    );
  });
};

async function startSession(deps: SessionRoutesDeps, reply: FastifyReply, user: User, account: Account) {
  const started = await deps.sessions.manager.start(user);
  setSessionCookie(reply, started.token, deps.sessions.secureCookie);
  return sessionView(deps.sessions.manager, { session: started.session, user, extended: false }, account);
}

function sessionView(manager: SessionManager, resumed: ResumedSession, account: Account) {
  return {
    user: { id: resumed.user.id, email: resumed.user.email, created_at: resumed.user.createdAt },
    account: { id: account.id, name: account.name, plan: account.plan },
    csrf_token: manager.csrfToken(resumed.session),
  };
}

function isProblem(problem: FieldProblem | null): problem is FieldProblem {
  return problem !== null;
}
