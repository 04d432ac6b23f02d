import type { FastifyRequest } from 'fastify';
import type { AuthService } from './auth.service.ts';
import { IdParams, MessageBody, pageWindow, standardErrors } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { presentUser } from '../users/users.presenter.ts';
import { presentSession, presentTokens } from './auth.presenter.ts';
import {
  ChangePasswordBody,
  CsrfAnswer,
  ForgotPasswordBody,
  LoginBody,
  MeAnswer,
  RefreshBody,
  RegisterBody,
  ResetPasswordBody,
  SessionList,
  SessionListQuery,
  TenantHeader,
  TokenAnswer,
} from './auth.schemas.ts';
import type { ClientInfo } from './auth.service.ts';

function clientOf(request: FastifyRequest): ClientInfo {
  const ua = request.headers['user-agent'];
  return { userAgent: typeof ua === 'string' ? ua : null, ip: request.ip ?? null };
}

/**
 * docs/api-decisions.md §3: sign-up, sign-in, tokens, sessions and passwords (rate-limit type Authentication).
 * register, login, refresh and password forgot/reset are public and need no CSRF token; unauthenticated,
 * they are counted per client IP (login not at all: the sign-in limits count its failures instead).
 */
export function authRoutes(app: App, s: { auth: AuthService }): void {
  const tags = ['auth'];
  const auth = s.auth;
  const open = { auth: 'public' as const, rateLimit: 'authentication' };
  const limited = { rateLimit: 'authentication' };

  app.post(
    '/auth/register',
    {
      config: { ...open, idempotency: 'public' as const },
      schema: {
        tags,
        summary: 'Register a tenant and its owner',
        description:
          'Creates a Free tenant and its owner, and signs the owner in (answers like login). Public. 409 `conflict` when the subdomain is taken. Honours `Idempotency-Key`: a retried registration replays its answer instead of failing on the now-taken subdomain.',
        body: RegisterBody,
        response: { 201: TokenAnswer, ...standardErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const issued = await auth.register({
        tenantName: b.tenant_name,
        subdomain: b.subdomain,
        email: b.email,
        password: b.password,
        name: b.name,
        client: clientOf(request),
      });
      return reply.status(201).send(presentTokens(issued));
    },
  );

  app.post(
    '/auth/login',
    {
      // Limited by its failures per account and per client (sign-in limits), not per minute.
      config: { ...open, limitedByFailures: true as const },
      schema: {
        tags,
        summary: 'Sign in with e-mail and password',
        description:
          "Public; the tenant is named by `X-Tenant-Subdomain`. Answers an access token, a refresh token and a CSRF token for the new session. Failed attempts are counted per account (tenant and e-mail) and per client IP: after 10 failures of one account within 15 minutes (50 from one client; configurable), every attempt for it answers 429 `rate_limit_exceeded` with `Retry-After` until the lock ends, right password or not; each further lock doubles (up to 1 hour by default). A success clears the account's failures; a password reset lifts its lock. Failures never count against the tenant's rate-limit budget.",
        headers: TenantHeader,
        body: LoginBody,
        response: { 200: TokenAnswer, ...standardErrors },
      },
    },
    async (request) =>
      presentTokens(
        await auth.login({
          subdomain: request.headers['x-tenant-subdomain'],
          email: request.body.email,
          password: request.body.password,
          client: clientOf(request),
        }),
      ),
  );

  app.post(
    '/auth/refresh',
    {
      config: open,
      schema: {
        tags,
        summary: 'Refresh the access token',
        description:
          'Public; needs no tenant header. Spends the refresh token for a new pair; presenting a spent refresh token again revokes the whole session (401). Invalid refresh tokens count against the client IP like failed logins (429 with `Retry-After` once it is locked).',
        body: RefreshBody,
        response: { 200: TokenAnswer, ...standardErrors },
      },
    },
    async (request) => presentTokens(await auth.refresh(request.body.refresh_token, clientOf(request))),
  );

  app.post(
    '/auth/logout',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Sign out',
        description: 'Revokes the current session at once, its access tokens included. User tokens only.',
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await auth.logout(authOf(request));
      return { message: 'Signed out' };
    },
  );

  app.get(
    '/auth/me',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Get the caller, their tenant and how they signed in',
        description: 'With an API key, `user` is null.',
        response: { 200: MeAnswer, ...standardErrors },
      },
    },
    async (request) => {
      const a = authOf(request);
      const { user, tenant } = await auth.me(a);
      return {
        user: user ? presentUser(user) : null,
        tenant: {
          id: tenant.id,
          name: tenant.name,
          subdomain: tenant.subdomain,
          tier: tenant.tier,
          status: tenant.status,
        },
        auth: { via: a.via, role: a.role, sandbox: a.sandbox, session_id: a.sessionId },
      };
    },
  );

  app.get(
    '/auth/csrf',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Get a fresh CSRF token',
        description: 'For the current session; user tokens only.',
        response: { 200: CsrfAnswer, ...standardErrors },
      },
    },
    async (request) => ({
      csrf_token: await auth.csrfToken(authOf(request)),
    }),
  );

  app.post(
    '/auth/password/change',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Change your password',
        description:
          "User tokens only. A wrong `current_password` is 400 `validation_error` and counts against the account like a failed login (429 with `Retry-After` while it is locked); the user's other sessions are signed out.",
        body: ChangePasswordBody,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await auth.changePassword(
        authOf(request),
        request.body.current_password,
        request.body.new_password,
        clientOf(request),
      );
      return { message: 'Password changed; other sessions were signed out' };
    },
  );

  app.post(
    '/auth/password/forgot',
    {
      config: open,
      schema: {
        tags,
        summary: 'Request a password reset',
        description:
          'Public; the tenant is named by `X-Tenant-Subdomain`. Always 202, whether or not the account exists; the reset token goes to the mail outbox.',
        headers: TenantHeader,
        body: ForgotPasswordBody,
        response: { 202: MessageBody, ...standardErrors },
      },
    },
    async (request, reply) => {
      await auth.forgotPassword(request.headers['x-tenant-subdomain'], request.body.email);
      return reply.status(202).send({ message: 'If the account exists, a reset message is on its way' });
    },
  );

  app.post(
    '/auth/password/reset',
    {
      config: open,
      schema: {
        tags,
        summary: 'Reset a password with a reset token',
        description:
          "Public. The token is single use (400 `validation_error` when invalid or expired; invalid tokens count against the client IP like failed logins); every session of the user is signed out and the account's sign-in lock is lifted.",
        body: ResetPasswordBody,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await auth.resetPassword(request.body.token, request.body.new_password, clientOf(request));
      return { message: 'Password reset; sign in with the new password' };
    },
  );

  app.get(
    '/auth/sessions',
    {
      config: limited,
      schema: {
        tags,
        summary: 'List your active sessions',
        description: 'User tokens only. Paged envelope `{data, total, page, page_size}`.',
        querystring: SessionListQuery,
        response: { 200: SessionList, ...standardErrors },
      },
    },
    async (request) => {
      const a = authOf(request);
      const page = pageWindow(request.query);
      const { rows, total } = await auth.listSessions(a, page);
      return {
        data: rows.map((s) => presentSession(s, a.sessionId)),
        total,
        page: page.page,
        page_size: page.pageSize,
      };
    },
  );

  app.delete(
    '/auth/sessions/:id',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Revoke one of your sessions',
        description: "User tokens only; a session that is not the caller's is 404.",
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await auth.revokeSession(authOf(request), request.params.id);
      return { message: 'Session revoked' };
    },
  );
}
