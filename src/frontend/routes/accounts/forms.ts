// What every page of the accounts area shares: the themed page with its form token and links, the
// message page, the CSRF check of every form, the 429 of a rate limit, mail links, and the one form
// flow (CSRF, then the action's schema, then the action; its validation errors re-render the form).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ValidationError } from '../../../domain/errors.js';
import type { Verdict } from '../../../domain/people/login-throttle.js';
import { parse } from '../../../domain/schema-fields.js';
import { siteOrigin } from '../../../domain/websites/urls.js';
import { validationMessages } from '../../../http/validation-messages.js';
import { urlFor } from '../../context.js';
import { localizeErrors, localizeMessage } from '../../site-messages.js';
import type { FrontendState } from '../../context.js';
import { checkCsrf, csrfToken } from '../../../http/csrf.js';
import type { FrontendKit } from '../../index.js';

/**
 * The Referrer-Policy of pages whose URL holds a token (reset and confirmation links): no other site
 * ever sees the URL in a Referer. `same-origin`, not `no-referrer`: under `no-referrer` a browser
 * posts the page's own form with `Origin: null`, which the CSRF check must refuse.
 */
export const TOKEN_PAGE_REFERRER_POLICY = 'same-origin';

export type Errors = Record<string, string[]>;
export type Body = Record<string, unknown>;
/** Shows a form of the area again, with what to add to its data (errors, entered values, notices). */
export type FormView = (
  request: FastifyRequest,
  reply: FastifyReply,
  state: FrontendState,
  data?: Body,
) => Promise<unknown>;

/** What a form shows again after an error: the strings entered, never a password. */
export function entered(body: unknown, fields: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    const value = (body as Body | undefined)?.[field];
    values[field] = typeof value === 'string' ? value.slice(0, 1000) : '';
  }
  return values;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));
export const tooMany = (what: string, retryAfter: number) =>
  `Too many ${what}. Please try again in ${minutes(retryAfter)} minute${minutes(retryAfter) === 1 ? '' : 's'}.`;

/** Sets 429 and `Retry-After` when a limit refused; returns the seconds to wait, or null. */
export function limited(reply: FastifyReply, verdict: Verdict): number | null {
  if (verdict.allowed) return null;
  reply.code(429).header('retry-after', String(verdict.retryAfter));
  return verdict.retryAfter;
}

/** Shows the form again with a status and the findings by field. */
export type Again = (status: number, errors: Errors) => Promise<unknown>;

/** A form submission (AccountPages.submit): its schema, the form shown again, and what it does. */
export interface SubmitFlow<S extends z.ZodType> {
  schema: S;
  /** Fields shown again after an error. */
  fields: string[];
  form: FormView;
  /** A limit or a switch that may answer first. */
  before?: (again: Again) => Promise<unknown>;
  action: (input: z.output<S>, again: Again) => Promise<unknown>;
}

export class AccountPages {
  constructor(readonly kit: FrontendKit) {}

  private get services() {
    return this.kit.services;
  }

  /** Renders a page of the accounts area with its form token and links. */
  async page(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    template: string,
    data: Body,
  ) {
    reply.header('cache-control', 'private, no-store');
    // The forms' findings come in the domain's English (API v1 answers them so): the page says them
    // in its locale.
    const errors = (data.errors ?? {}) as Errors;
    return this.kit.render(request, reply, template, {
      csrf_token: await csrfToken(this.services, request, reply),
      links: {
        login: urlFor(state, '/user/login'),
        register: urlFor(state, '/user/register'),
        forgot: urlFor(state, '/user/password/forgot'),
        profile: urlFor(state, '/user/profile'),
        settings: urlFor(state, '/user/settings'),
      },
      registration_open: await this.services.accounts.registrationOpen(),
      form: {},
      ...data,
      errors: localizeErrors(errors, state.t),
    });
  }

  /** The view of a simple form page: its template, title (the theme's key) and where it posts. */
  form(template: string, titleKey: string, actionPath: string): FormView {
    return (request, reply, state, data = {}) =>
      this.page(request, reply, state, template, {
        title: state.t(titleKey),
        action: urlFor(state, actionPath),
        ...data,
      });
  }

  /**
   * `mailed`: the page says a mail was sent (in development without SMTP_URL, it says where to).
   * `title` and `text` are said in the page's locale by the caller (`state.t`); an English sentence
   * of the domain is read into it here.
   */
  message(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    status: number,
    title: string,
    text: string,
    mailed = false,
  ) {
    reply.code(status);
    return this.page(request, reply, state, 'user/message', {
      title,
      message: localizeMessage(text, state.t),
      mail_in_log: mailed && this.mailGoesToLog(),
    });
  }

  /** The page after a mail went out: `{key}.title` and `{key}.text` (with `vars`) of the theme. */
  mailSent(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    key: string,
    vars?: Record<string, string>,
  ) {
    return this.message(
      request,
      reply,
      state,
      200,
      state.t(`${key}.title`),
      state.t(`${key}.text`, vars),
      true,
    );
  }

  /**
   * Issue 22 #9: with no SMTP_URL, mail is written to the server's log; in development the pages that
   * say "we sent you a link" tell the operator to look there (never in production: visitors would
   * learn how the site is set up).
   */
  mailGoesToLog(): boolean {
    return this.services.config.smtpUrl === null && this.services.config.development;
  }

  /** CSRF for every form of this area: same origin, and the form's token (always required). */
  refused(request: FastifyRequest): Promise<string | null> {
    return checkCsrf(this.services, request, { requireToken: () => true });
  }

  /**
   * A link for a mail: the website's primary domain with the scheme and port Folio is served on, and
   * the visitor's locale prefix. Never the request's Host, which the sender of the form chooses.
   */
  mailLink(state: FrontendState, path: string): string {
    return `${siteOrigin(state.website, this.services.config.appUrl)}${urlFor(state, path)}`;
  }

  siteName(state: FrontendState): string {
    return String(state.website.fields.site_name ?? state.website.domain);
  }

  /** The website a mail speaks for: its name, and its primary domain (the sender's, mailer.ts). */
  mailSite(state: FrontendState): { name: string; domain: string; locale: string } {
    // The page's locale: a mail to someone without an account is written in it.
    return { name: this.siteName(state), domain: state.website.domain, locale: state.locale };
  }

  /**
   * The pages of a mailed link that carries a token (`{path}/{token}`): a GET shows the form (or the
   * dead-link message) and uses nothing up, so a mail scanner cannot spend the token; the POST runs
   * the form flow and then `action` with the token. Both send TOKEN_PAGE_REFERRER_POLICY. `gate` may
   * answer first (registration closed).
   */
  tokenLink<S extends z.ZodType>(spec: {
    path: string;
    name: string;
    template: string;
    /** The page's words (title, message, button…) by the theme's keys, said in the page's locale. */
    words: Record<string, string>;
    valid: (token: string) => Promise<boolean>;
    dead: { status: number; key: string };
    gate?: (request: FastifyRequest, reply: FastifyReply, state: FrontendState) => Promise<unknown>;
    schema: S;
    action: (
      token: string,
      input: z.output<S>,
      request: FastifyRequest,
      reply: FastifyReply,
      state: FrontendState,
    ) => Promise<unknown>;
  }): FormView {
    const tokenOf = (request: FastifyRequest) => (request.params as { token: string }).token;
    const form: FormView = async (request, reply, state, data = {}) => {
      reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
      const token = tokenOf(request);
      if (!(await spec.valid(token))) return this.deadLink(request, reply, state, spec.dead);
      return this.page(request, reply, state, spec.template, {
        ...Object.fromEntries(Object.entries(spec.words).map(([name, key]) => [name, state.t(key)])),
        action: urlFor(state, `${spec.path}/${token}`),
        ...data,
      });
    };
    this.kit.page('GET', `${spec.path}/:token`, { name: spec.name }, async (request, reply, state) => {
      const answered = await spec.gate?.(request, reply, state);
      return answered !== undefined ? answered : form(request, reply, state);
    });
    this.kit.page(
      'POST',
      `${spec.path}/:token`,
      { name: `${spec.name}.submit` },
      async (request, reply, state) => {
        reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
        const answered = await spec.gate?.(request, reply, state);
        if (answered !== undefined) return answered;
        return this.submit(request, reply, state, {
          schema: spec.schema,
          fields: [],
          form,
          action: (input) => spec.action(tokenOf(request), input, request, reply, state),
        });
      },
    );
    return form;
  }

  /** A mailed link that is unknown, used or expired. */
  deadLink(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    dead: { status: number; key: string },
  ) {
    return this.message(request, reply, state, dead.status, state.t('error.invalid_link'), state.t(dead.key));
  }

  /** The POST route of a form: the one flow (submit) of what `flow` makes of the request. */
  formPost<S extends z.ZodType>(
    path: string,
    name: string,
    schema: S,
    flow: (
      request: FastifyRequest,
      reply: FastifyReply,
      state: FrontendState,
    ) => Omit<SubmitFlow<S>, 'schema'>,
  ): void {
    this.kit.page('POST', path, { name }, async (request, reply, state) =>
      this.submit(request, reply, state, { schema, ...flow(request, reply, state) }),
    );
  }

  /**
   * The one flow of a form submission: the CSRF check (403), then `before` (a limit or a switch that
   * may answer first), the schema (422 with the form again), then the action, whose validation errors
   * (a taken username…) also show the form again.
   */
  async submit<S extends z.ZodType>(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    flow: SubmitFlow<S>,
  ): Promise<unknown> {
    const reason = await this.refused(request);
    if (reason) return this.message(request, reply, state, 403, state.t('error.form_refused'), reason);
    const again: Again = (status, errors) => {
      reply.code(status);
      return flow.form(request, reply, state, { errors, form: entered(request.body, flow.fields) });
    };
    try {
      const answered = await flow.before?.(again);
      if (answered !== undefined) return answered;
      return await flow.action(parse(flow.schema, request.body ?? {}), again);
    } catch (error) {
      if (error instanceof ValidationError) return again(422, validationMessages(error));
      throw error;
    }
  }
}
