// Accounts of the public site (spec 4.8, R-F1 `frontend.users.*`): login (form and JSON), logout,
// registration confirmed by mail, password reset by mail, profile and settings. Every form carries the
// CSRF token and every submission checks it; login, registration and reset requests are counted per
// account (email) and per address; messages and response times never tell whether an email has an
// account.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formatIssues } from '../../http/validation-messages.js';
import { AccountInputError, USERNAME_PATTERN } from '../../domain/accounts.js';
import { MIN_PASSWORD_LENGTH } from '../../domain/users.js';
import type { Verdict } from '../../domain/login-throttle.js';
import { urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import { checkCsrf, csrfToken } from '../csrf.js';
import type { FrontendKit } from '../index.js';
import {
  clientAddress,
  installVisitorLookup,
  redirectToLogin,
  safeRedirect,
  sessionIdOf,
  signIn,
  signOut,
} from '../session.js';

const MAX_PASSWORD_LENGTH = 255;
const BAD_CREDENTIALS = 'These credentials do not match our records.';

type Errors = Record<string, string[]>;
type Body = Record<string, unknown>;

const text = (max: number) => z.string().trim().min(1).max(max);
const email = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine(
    (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
    'The :attribute must be a valid email address.',
  );
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `The :attribute must be at least ${MIN_PASSWORD_LENGTH} characters.`)
  .max(MAX_PASSWORD_LENGTH);
const username = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (value) => USERNAME_PATTERN.test(value),
    'The :attribute must be 3 to 32 lower-case letters, digits, - or _.',
  );
const confirmed = <T extends { password?: string; password_confirmation?: unknown }>(input: T) =>
  !input.password || input.password === input.password_confirmation;
const confirmation = { message: 'The password confirmation does not match.', path: ['password'] };

const loginSchema = z.object({ email: text(255), password: z.string().min(1).max(MAX_PASSWORD_LENGTH) });
const registerSchema = z
  .object({
    name: text(255),
    email,
    username: z.preprocess((value) => (value === '' ? undefined : value), username.optional()),
    password,
    password_confirmation: z.unknown().optional(),
  })
  .refine(confirmed, confirmation);
const forgotSchema = z.object({ email });
const resetSchema = z
  .object({ password, password_confirmation: z.unknown().optional() })
  .refine(confirmed, confirmation);
const profileSchema = z.object({ name: text(255), username });
const settingsSchema = z
  .object({
    email,
    current_password: z.string().max(MAX_PASSWORD_LENGTH).optional(),
    password: z.preprocess((value) => (value === '' ? undefined : value), password.optional()),
    password_confirmation: z.unknown().optional(),
  })
  .refine(confirmed, confirmation);

function parse<S extends z.ZodType>(schema: S, body: unknown): { data: z.output<S> } | { errors: Errors } {
  const result = schema.safeParse(body ?? {}, { reportInput: true });
  return result.success ? { data: result.data } : { errors: formatIssues(result.error.issues) };
}

/** What a form shows again after an error: the strings entered, never a password. */
function entered(body: unknown, fields: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = (body as Body | undefined)?.[field];
    values[field] = typeof value === 'string' ? value.slice(0, 1000) : '';
  }
  return values;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));
const tooMany = (what: string, retryAfter: number) =>
  `Too many ${what}. Please try again in ${minutes(retryAfter)} minute${minutes(retryAfter) === 1 ? '' : 's'}.`;

export function accountRoutes(kit: FrontendKit): void {
  const { services } = kit;
  installVisitorLookup(kit);

  /** Renders a page of the accounts area with its form token and links. */
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    template: string,
    data: Record<string, unknown>,
  ) => {
    reply.header('cache-control', 'private, no-store');
    return kit.render(request, reply, template, {
      csrf_token: await csrfToken(services, request, reply),
      links: {
        login: urlFor(state, '/user/login'),
        register: urlFor(state, '/user/register'),
        forgot: urlFor(state, '/user/password/forgot'),
        profile: urlFor(state, '/user/profile'),
        settings: urlFor(state, '/user/settings'),
      },
      registration_open: await services.accounts.registrationOpen(),
      errors: {},
      form: {},
      ...data,
    });
  };

  const message = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    status: number,
    title: string,
    text: string,
  ) => {
    reply.code(status);
    return page(request, reply, state, 'user/message', { title, message: text });
  };

  /** CSRF for every form of this area: same origin, and the form's token (requireToken always). */
  const refused = (request: FastifyRequest) => checkCsrf(services, request, { requireToken: () => true });

  /**
   * A link for a mail: the host the visitor used (a domain of this website, checked by has_website)
   * with APP_URL's scheme, and the visitor's locale prefix.
   */
  const absoluteUrl = (request: FastifyRequest, state: FrontendState, path: string) =>
    `${new URL(services.config.appUrl).protocol}//${request.host}${urlFor(state, path)}`;

  const siteNameOf = (state: FrontendState) => String(state.website.fields.site_name ?? state.website.domain);

  const limited = (reply: FastifyReply, verdict: Verdict): number | null => {
    if (verdict.allowed) return null;
    reply.code(429).header('retry-after', String(verdict.retryAfter));
    return verdict.retryAfter;
  };

  // ---- Login ---------------------------------------------------------------------------------------

  const loginForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    data: Record<string, unknown> = {},
  ) => {
    const query = request.query as Body;
    return page(request, reply, state, 'user/login', {
      title: 'Log in',
      action: urlFor(state, '/user/login/submit'),
      ajax_action: urlFor(state, '/user/login/ajax'),
      redirect: safeRedirect(query.redirect, ''),
      notice: query.reset === '1' ? 'Your password has been changed. Log in with the new one.' : null,
      ...data,
    });
  };

  kit.page('GET', '/user/login', { name: 'users.login' }, async (request, reply, state) => {
    if (state.user) return reply.redirect(safeRedirect((request.query as Body).redirect, urlFor(state, '/')));
    return loginForm(request, reply, state);
  });

  type LoginOutcome =
    | { ok: true; redirect: string }
    | { ok: false; status: number; message: string; errors: Errors; retryAfter?: number };

  /** The login itself, shared by the form and the JSON endpoint. */
  const attemptLogin = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
  ): Promise<LoginOutcome> => {
    const reason = await refused(request);
    if (reason) return { ok: false, status: 403, message: reason, errors: {} };
    const input = parse(loginSchema, request.body);
    if ('errors' in input) {
      return { ok: false, status: 422, message: 'Validation failed', errors: input.errors };
    }
    const address = clientAddress(request);
    const verdict = await services.throttle.loginAttempt(input.data.email, address);
    const retryAfter = limited(reply, verdict);
    if (retryAfter !== null) {
      const text = tooMany('login attempts', retryAfter);
      return { ok: false, status: 429, message: text, errors: { email: [text] }, retryAfter };
    }
    // Unknown email, wrong password and disabled account: one message, one cost (a dummy hash is
    // verified for an unknown email).
    const user = await services.users.authenticatePassword(input.data.email, input.data.password);
    if (!user)
      return { ok: false, status: 422, message: BAD_CREDENTIALS, errors: { email: [BAD_CREDENTIALS] } };
    await services.throttle.loginSucceeded(input.data.email, address);
    await signIn(services, request, reply, user);
    return { ok: true, redirect: safeRedirect((request.body as Body).redirect, urlFor(state, '/')) };
  };

  kit.page('POST', '/user/login/submit', { name: 'users.login.submit' }, async (request, reply, state) => {
    const outcome = await attemptLogin(request, reply, state);
    if (outcome.ok) return reply.redirect(outcome.redirect, 303);
    if (outcome.status === 403) return message(request, reply, state, 403, 'Form refused', outcome.message);
    reply.code(outcome.status);
    return loginForm(request, reply, state, {
      errors: outcome.errors,
      form: entered(request.body, ['email']),
      redirect: safeRedirect((request.body as Body | undefined)?.redirect, ''),
    });
  });

  kit.page('POST', '/user/login/ajax', { name: 'users.login.ajax' }, async (request, reply, state) => {
    const outcome = await attemptLogin(request, reply, state);
    reply.header('cache-control', 'private, no-store');
    if (outcome.ok) {
      return { code: 200, status: 'success', message: 'You are logged in.', redirect: outcome.redirect };
    }
    reply.code(outcome.status);
    return {
      code: outcome.status,
      status: 'fail',
      message: outcome.message,
      ...(outcome.status === 422 ? { errors: outcome.errors } : {}),
      ...(outcome.retryAfter !== undefined ? { retry_after: outcome.retryAfter } : {}),
    };
  });

  kit.page('POST', '/user/logout', { name: 'users.logout' }, async (request, reply, state) => {
    const reason = await refused(request);
    if (reason) return message(request, reply, state, 403, 'Form refused', reason);
    await signOut(services, request, reply);
    return reply.redirect(urlFor(state, '/'), 303);
  });

  // ---- Registration --------------------------------------------------------------------------------

  const registerForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    data: Record<string, unknown> = {},
  ) =>
    page(request, reply, state, 'user/register', {
      title: 'Register',
      action: urlFor(state, '/user/register/submit'),
      ...data,
    });

  const closed = (request: FastifyRequest, reply: FastifyReply, state: FrontendState) =>
    message(request, reply, state, 403, 'Registration is closed', 'This site does not take new accounts.');

  kit.page('GET', '/user/register', { name: 'users.register' }, async (request, reply, state) => {
    if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
    if (state.user) return reply.redirect(urlFor(state, '/'));
    return registerForm(request, reply, state);
  });

  kit.page(
    'POST',
    '/user/register/submit',
    { name: 'users.register.submit' },
    async (request, reply, state) => {
      const reason = await refused(request);
      if (reason) return message(request, reply, state, 403, 'Form refused', reason);
      if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
      const again = (status: number, errors: Errors) => {
        reply.code(status);
        return registerForm(request, reply, state, {
          errors,
          form: entered(request.body, ['name', 'email', 'username']),
        });
      };
      const retryAfter = limited(reply, await services.throttle.registerAttempt(clientAddress(request)));
      if (retryAfter !== null) return again(429, { email: [tooMany('registrations', retryAfter)] });
      const input = parse(registerSchema, request.body);
      if ('errors' in input) return again(422, input.errors);
      try {
        // Only what says nothing about the email: a taken username (usernames are public).
        await services.accounts.checkRegistration(input.data);
      } catch (error) {
        if (error instanceof AccountInputError) return again(422, error.errors);
        throw error;
      }
      // Past this point the answer is the same for every valid email, with or without an account,
      // and for one mailed too often (the limit per email only stops the mail).
      const mailAllowed = (await services.throttle.registerEmailAttempt(input.data.email)).allowed;
      if (mailAllowed) {
        await services.accounts.requestRegistration(
          input.data,
          {
            confirm: (token) => absoluteUrl(request, state, `/user/register/confirm/${token}`),
            login: absoluteUrl(request, state, '/user/login'),
            reset: absoluteUrl(request, state, '/user/password/forgot'),
          },
          siteNameOf(state),
        );
      }
      return message(
        request,
        reply,
        state,
        200,
        'Check your email',
        `Check your email: we sent a link to finish creating your account to ${input.data.email}.`,
      );
    },
  );

  kit.page(
    'GET',
    '/user/register/confirm/:token',
    { name: 'users.register.confirm' },
    async (request, reply, state) => {
      // Opened from a mail: a top-level navigation from another site or an app, so no form token and
      // no same-origin check. The token is in the URL: no page resource may carry it in a Referer.
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cache-control', 'private, no-store');
      if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
      // A HEAD (a mail scanner checking the link) must not use the token up.
      if (request.method === 'HEAD') {
        return message(
          request,
          reply,
          state,
          200,
          'Create your account',
          'Open this link in your browser to finish creating your account.',
        );
      }
      const token = (request.params as { token: string }).token;
      const user = await services.accounts.confirmRegistration(token);
      if (!user) {
        return message(
          request,
          reply,
          state,
          400,
          'Invalid link',
          'This link is invalid or has expired. Register again to get a new one.',
        );
      }
      await signIn(services, request, reply, user);
      return reply.redirect(urlFor(state, '/user/profile?welcome=1'), 303);
    },
  );

  // ---- Password reset ------------------------------------------------------------------------------

  const forgotForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    data: Record<string, unknown> = {},
  ) =>
    page(request, reply, state, 'user/forgot', {
      title: 'Forgot your password?',
      action: urlFor(state, '/user/password/forgot/submit'),
      ...data,
    });

  kit.page('GET', '/user/password/forgot', { name: 'users.password.forgot' }, async (request, reply, state) =>
    forgotForm(request, reply, state),
  );

  kit.page(
    'POST',
    '/user/password/forgot/submit',
    { name: 'users.password.forgot.submit' },
    async (request, reply, state) => {
      const reason = await refused(request);
      if (reason) return message(request, reply, state, 403, 'Form refused', reason);
      const input = parse(forgotSchema, request.body);
      if ('errors' in input) {
        reply.code(422);
        return forgotForm(request, reply, state, {
          errors: input.errors,
          form: entered(request.body, ['email']),
        });
      }
      const retryAfter = limited(
        reply,
        await services.throttle.resetAttempt(input.data.email, clientAddress(request)),
      );
      if (retryAfter !== null) {
        return forgotForm(request, reply, state, {
          errors: { email: [tooMany('password reset requests', retryAfter)] },
          form: entered(request.body, ['email']),
        });
      }
      // The mail goes out in the background.
      services.accounts.requestPasswordReset(
        input.data.email,
        (token) => absoluteUrl(request, state, `/user/password/reset/${token}`),
        siteNameOf(state),
      );
      return message(
        request,
        reply,
        state,
        200,
        'Check your inbox',
        'If an account exists for that email, we have sent it a link to choose a new password.',
      );
    },
  );

  const resetForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    data: Record<string, unknown> = {},
  ) => {
    // The token is in the URL: no page resource may carry it away in a Referer.
    reply.header('referrer-policy', 'no-referrer');
    const token = (request.params as { token: string }).token;
    if (!(await services.accounts.resetTokenValid(token))) {
      return message(
        request,
        reply,
        state,
        404,
        'Invalid link',
        'This password reset link is invalid, used or expired. Ask for a new one.',
      );
    }
    return page(request, reply, state, 'user/reset', {
      title: 'Choose a new password',
      action: urlFor(state, `/user/password/reset/${token}`),
      ...data,
    });
  };

  kit.page(
    'GET',
    '/user/password/reset/:token',
    { name: 'users.password.reset' },
    async (request, reply, state) => resetForm(request, reply, state),
  );

  kit.page(
    'POST',
    '/user/password/reset/:token',
    { name: 'users.password.reset.submit' },
    async (request, reply, state) => {
      reply.header('referrer-policy', 'no-referrer');
      const reason = await refused(request);
      if (reason) return message(request, reply, state, 403, 'Form refused', reason);
      const input = parse(resetSchema, request.body);
      if ('errors' in input) {
        reply.code(422);
        return resetForm(request, reply, state, { errors: input.errors });
      }
      const token = (request.params as { token: string }).token;
      if (!(await services.accounts.resetPassword(token, input.data.password))) {
        return resetForm(request, reply, state);
      }
      // Every session of the account ended; the visitor's own cookie goes too.
      await signOut(services, request, reply);
      return reply.redirect(`${urlFor(state, '/user/login')}?reset=1`, 303);
    },
  );

  // ---- Profile and settings (auth) -----------------------------------------------------------------

  const profileForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    data: Record<string, unknown> = {},
  ) => {
    const user = state.user!;
    const query = request.query as Body;
    return page(request, reply, state, 'user/profile', {
      title: 'Your profile',
      action: urlFor(state, '/user/profile/update'),
      account: { name: user.name, email: user.email, username: user.username ?? '' },
      form: { name: user.name, username: user.username ?? '' },
      notice:
        query.welcome === '1'
          ? 'Welcome! Your account is ready.'
          : query.saved === '1'
            ? 'Your profile has been saved.'
            : null,
      write_url: urlFor(state, '/post/create'),
      ...data,
    });
  };

  kit.page('GET', '/user/profile', { name: 'users.profile' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    return profileForm(request, reply, state);
  });

  /**
   * The update routes of the signed-in visitor's own forms (profile, settings): a GET goes back to the
   * form; a POST is checked (CSRF, then the schema), saved, and answered with the form again (422) or
   * a redirect to it with `?saved=1`.
   */
  const updateRoute = <S extends z.ZodType>(spec: {
    path: string;
    name: string;
    formPath: string;
    schema: S;
    fields: string[];
    form: (
      request: FastifyRequest,
      reply: FastifyReply,
      state: FrontendState,
      data: Body,
    ) => Promise<unknown>;
    save: (request: FastifyRequest, state: FrontendState, data: z.output<S>) => Promise<void>;
  }) =>
    kit.page(['GET', 'POST'], spec.path, { name: spec.name }, async (request, reply, state) => {
      if (redirectToLogin(request, reply, state)) return reply;
      if (request.method !== 'POST') return reply.redirect(urlFor(state, spec.formPath));
      const reason = await refused(request);
      if (reason) return message(request, reply, state, 403, 'Form refused', reason);
      const again = (errors: Errors) => {
        reply.code(422);
        return spec.form(request, reply, state, { errors, form: entered(request.body, spec.fields) });
      };
      const input = parse(spec.schema, request.body);
      if ('errors' in input) return again(input.errors);
      try {
        await spec.save(request, state, input.data);
      } catch (error) {
        if (error instanceof AccountInputError) return again(error.errors);
        throw error;
      }
      return reply.redirect(`${urlFor(state, spec.formPath)}?saved=1`, 303);
    });

  updateRoute({
    path: '/user/profile/update',
    name: 'users.profile.update',
    formPath: '/user/profile',
    schema: profileSchema,
    fields: ['name', 'username'],
    form: profileForm,
    save: (_request, state, data) => services.accounts.updateProfile(state.user!.id, data),
  });

  const settingsForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    data: Record<string, unknown> = {},
  ) =>
    page(request, reply, state, 'user/settings', {
      title: 'Account settings',
      action: urlFor(state, '/user/settings/update'),
      form: { email: state.user!.email },
      notice: (request.query as Body).saved === '1' ? 'Your settings have been saved.' : null,
      ...data,
    });

  kit.page('GET', '/user/settings', { name: 'users.settings' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    return settingsForm(request, reply, state);
  });

  updateRoute({
    path: '/user/settings/update',
    name: 'users.settings.update',
    formPath: '/user/settings',
    schema: settingsSchema,
    fields: ['email'],
    form: settingsForm,
    save: async (request, state, data) =>
      services.accounts.updateSettings(
        state.user!,
        { email: data.email, newPassword: data.password, currentPassword: data.current_password },
        (await sessionIdOf(services, request)) as string,
      ),
  });
}
