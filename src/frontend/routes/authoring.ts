// Writing posts on the public site (spec 4.8, R-F1 `frontend.posts.create/.store/.edit/.update`), for
// signed-in users: the authoring service (the API's posts service plus the authors' rules) does the
// work; these routes parse the form, check the CSRF token, and re-render the form with the messages
// and the values entered when something is wrong.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { formatIssues, validationMessages } from '../../http/validation-messages.js';
import { previewHtml } from '../../domain/posts/authoring.js';
import {
  formList,
  postPreviewInput,
  readPostForm,
  reviewDecisionInput,
} from '../../domain/posts/form-input.js';
import type { PostForm } from '../../domain/posts/authoring.js';
import type { PostDetail } from '../../domain/posts/index.js';
import { frontendState, urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import { checkCsrf, csrfToken } from '../../http/csrf.js';
import type { FrontendKit } from '../index.js';
import { redirectToLogin } from '../session.js';
import { renderPostPreview } from './previews.js';
import { localizeErrors, localizeMessage } from '../site-messages.js';

type Errors = Record<string, string[]>;
type Body = Record<string, unknown>;

/** Field messages as the form shows them: `categories.2` is reported on `categories`. */
function byField(errors: Errors): Errors {
  const fields: Errors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const field = key.split('.')[0] as string;
    fields[field] = [...new Set([...(fields[field] ?? []), ...messages])];
  }
  return fields;
}

/** The form as entered, to show it again. */
function entered(body: Body | undefined): Record<string, unknown> {
  const value = (field: string) => {
    const given = body?.[field];
    return typeof given === 'string' ? given : '';
  };
  return {
    title: value('title'),
    content: value('content'),
    format: value('format') === 'markdown' ? 'markdown' : 'html',
    excerpt: value('excerpt'),
    status: value('status') || 'draft',
    categories: formList(body?.categories).map(String),
    tags: value('tags'),
    thumbnail_url: value('thumbnail_url'),
  };
}

function formOfPost(form: PostForm): Record<string, unknown> {
  return {
    title: form.title,
    content: form.content,
    format: form.format,
    excerpt: form.excerpt,
    status: form.status,
    categories: form.categories.map(String),
    tags: form.tags.join(', '),
    thumbnail_url: form.thumbnailUrl,
  };
}

// The form's posts take the thumbnail as an uploaded file (multipart), unlike other site routes.
const STORE_ROUTE = { name: 'posts.store', acceptsFiles: true };
const UPDATE_ROUTE = { name: 'posts.update', acceptsFiles: true };

export function authoringRoutes(kit: FrontendKit): void {
  const { services } = kit;

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    template: 'post/create' | 'post/edit',
    data: Record<string, unknown>,
  ) => {
    reply.header('cache-control', 'private, no-store');
    const current = (data.post as { status?: string } | undefined)?.status;
    const statuses = await services.authoring.statusesFor(state.user!, state.website.id, current);
    return kit.render(request, reply, template, {
      csrf_token: await csrfToken(services, request, reply),
      categories: await services.authoring.categories(state.locale, state.website.id),
      statuses: statuses.map((value) => ({ value, label: state.t(`form.status.${value}`) })),
      ...data,
      errors: localizeErrors((data.errors ?? {}) as Errors, state.t),
    });
  };

  /** A refusal page: its title is the theme's key, its text a key or the domain's English sentence. */
  const refusal = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    titleKey: string,
    text: string,
  ) => {
    reply.code(status).header('cache-control', 'private, no-store');
    const { t } = frontendState(request);
    const message = /^[a-z_]+\.[a-z_.]+$/.test(text) ? t(text) : localizeMessage(text, t);
    return kit.render(request, reply, 'user/message', { title: t(titleKey), message });
  };

  /** Parses and checks the form (the domain's schema); `allowed` are the statuses this form may set. */
  const parseForm = (body: unknown, allowed: string[]): { form: PostForm } | { errors: Errors } => {
    try {
      return { form: readPostForm(body, allowed) };
    } catch (error) {
      if (error instanceof ValidationError) return { errors: byField(validationMessages(error)) };
      throw error;
    }
  };

  /**
   * Saves the form (`save`), then goes to the saved post's edit form; the operation's findings show
   * the form again (`again`), a refusal of the policy is a 403 page.
   */
  const saveThenEdit = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    again: (errors: Errors) => Promise<unknown>,
    save: () => Promise<PostDetail>,
  ) => {
    let post: PostDetail;
    try {
      post = await save();
    } catch (error) {
      if (error instanceof ValidationError) return again(byField(validationMessages(error)));
      if (error instanceof ForbiddenError) {
        return refusal(request, reply, 403, 'error.not_allowed', 'edit.cannot_write');
      }
      throw error;
    }
    return reply.redirect(`${urlFor(state, `/post/edit/${post.id}`)}?saved=1`, 303);
  };

  kit.page('GET', '/post/create', { name: 'posts.create' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    return render(request, reply, state, 'post/create', {
      title: state.t('write.title'),
      action: urlFor(state, '/post/store'),
      form: { status: 'draft', categories: [], format: 'markdown' },
    });
  });

  kit.page('POST', '/post/store', STORE_ROUTE, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const reason = await checkCsrf(services, request, { requireToken: () => true });
    if (reason) return refusal(request, reply, 403, 'error.form_refused', reason);
    const again = (errors: Errors) => {
      reply.code(422);
      return render(request, reply, state, 'post/create', {
        title: state.t('write.title'),
        action: urlFor(state, '/post/store'),
        form: entered(request.body as Body),
        errors,
      });
    };
    const parsed = parseForm(
      request.body,
      await services.authoring.statusesFor(state.user!, state.website.id),
    );
    if ('errors' in parsed) return again(parsed.errors);
    return saveThenEdit(request, reply, state, again, () =>
      services.authoring.create(parsed.form, state.user!, state.website.id),
    );
  });

  // The editor's live preview (themes/default/assets/editor.js): the content as it would be stored,
  // as JSON. Signed-in writers only, with the form token; nothing is stored.
  kit.page(
    'POST',
    '/post/preview',
    { name: 'posts.preview', localized: false },
    async (request, reply, state) => {
      reply.header('cache-control', 'private, no-store');
      if (!state.user) return reply.code(401).send({ status: 'fail', message: 'Sign in to write posts.' });
      const reason = await checkCsrf(services, request, { requireToken: () => true });
      if (reason) return reply.code(403).send({ status: 'fail', message: reason });
      const parsed = postPreviewInput.safeParse(request.body ?? {});
      if (!parsed.success) {
        return reply.code(422).send({
          status: 'fail',
          message: 'Validation failed',
          errors: byField(formatIssues(parsed.error.issues)),
        });
      }
      return reply.send({
        status: 'success',
        data: { html: previewHtml(parsed.data.content, parsed.data.format) },
      });
    },
  );

  /** The post of `/post/{edit,update}/{post}` when the user may edit it; else the reply is sent. */
  const open = async (request: FastifyRequest, reply: FastifyReply, state: FrontendState) => {
    const ref = (request.params as { post: string }).post;
    const access = await services.authoring.open(ref, state.user!, state.website.id);
    if ('post' in access) return access.post;
    if (access.error === 'not_found') {
      reply.header('cache-control', 'private, no-store');
      await reply.send(await kit.notFound(request, reply));
    } else {
      await reply.send(await refusal(request, reply, 403, 'edit.not_yours.title', 'edit.not_yours'));
    }
    return null;
  };

  const editData = async (state: FrontendState, post: PostDetail) => {
    // The editor's note, while the post is back with its writer (a draft after `returned`).
    const review = await services.authoring.reviewOf(post, state.user!, state.website.id);
    return {
      title: state.t('edit.page_title', { title: post.title }),
      action: urlFor(state, `/post/update/${post.id}`),
      post: {
        id: post.id,
        slug: post.slug,
        status: post.status,
        status_label: state.t(`form.status.${post.status}`),
        url: urlFor(state, `/post/${post.slug}`),
        preview_url: urlFor(state, `/post/preview/${post.id}`),
        delete_url: urlFor(state, `/post/delete/${post.id}`),
      },
      review:
        review && review.decision === 'returned' && post.status === 'draft'
          ? { note: review.note, by: review.userName ?? state.t('edit.an_editor'), at: review.at }
          : null,
    };
  };

  kit.page('GET', '/post/edit/:post', { name: 'posts.edit' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const post = await open(request, reply, state);
    if (!post) return reply;
    return render(request, reply, state, 'post/edit', {
      ...(await editData(state, post)),
      form: formOfPost(services.authoring.formOf(post)),
      notice: (request.query as Body).saved === '1' ? state.t('edit.saved') : null,
    });
  });

  // Delete, asked first on a page of its own (works without JavaScript), then done by a form with the
  // site's token; back to the writer's profile, where their posts are listed.
  kit.page('GET', '/post/delete/:post', { name: 'posts.delete.confirm' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const post = await open(request, reply, state);
    if (!post) return reply;
    reply.header('cache-control', 'private, no-store');
    return kit.render(request, reply, 'post/delete', {
      title: state.t('delete.page_title', { title: post.title }),
      post: { id: post.id, title: post.title, status: post.status },
      action: urlFor(state, `/post/delete/${post.id}`),
      cancel_url: urlFor(state, `/post/edit/${post.id}`),
      csrf_token: await csrfToken(services, request, reply),
    });
  });

  kit.page('POST', '/post/delete/:post', { name: 'posts.delete' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const reason = await checkCsrf(services, request, { requireToken: () => true });
    if (reason) return refusal(request, reply, 403, 'error.form_refused', reason);
    const post = await open(request, reply, state);
    if (!post) return reply;
    try {
      await services.authoring.delete(post, state.user!, state.website.id);
    } catch (error) {
      if (error instanceof ForbiddenError) {
        return refusal(request, reply, 403, 'error.not_allowed', 'delete.not_allowed');
      }
      throw error;
    }
    return reply.redirect(urlFor(state, '/user/profile?deleted=1'), 303);
  });

  // On a post's public page, for a signed-in visitor who may edit it: links to edit it (their pages
  // are never put in the page cache, so visitors never see them).
  kit.addTemplateData('post', async (request, _reply, state, data) => {
    const id = (data.post as { id?: unknown } | undefined)?.id;
    if (state.user === null || typeof id !== 'number') return {};
    const access = await services.authoring.open(String(id), state.user, state.website.id);
    if (!('post' in access)) return {};
    return {
      edit: {
        url: urlFor(state, `/post/edit/${id}`),
        admin_url: `/admin/posts/${id}`,
        delete_url: urlFor(state, `/post/delete/${id}`),
      },
    };
  });

  // A draft (or any version) on the site's real theme, for those who may edit it: the admin panel's
  // and the edit form's "Preview". Never cached, never indexed.
  kit.page('GET', '/post/preview/:post', { name: 'posts.preview' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const post = await open(request, reply, state);
    if (!post) return reply;
    reply.header('cache-control', 'private, no-store');
    return renderPostPreview(kit, request, reply, state, post, urlFor(state, `/post/preview/${post.id}`));
  });

  kit.page('POST', '/post/update/:post', UPDATE_ROUTE, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const reason = await checkCsrf(services, request, { requireToken: () => true });
    if (reason) return refusal(request, reply, 403, 'error.form_refused', reason);
    const post = await open(request, reply, state);
    if (!post) return reply;
    const again = async (errors: Errors) => {
      reply.code(422);
      return render(request, reply, state, 'post/edit', {
        ...(await editData(state, post)),
        form: entered(request.body as Body),
        errors,
      });
    };
    const statuses = await services.authoring.statusesFor(state.user!, state.website.id, post.status);
    const parsed = parseForm(request.body, statuses);
    if ('errors' in parsed) return again(parsed.errors);
    return saveThenEdit(request, reply, state, again, () =>
      services.authoring.update(post, parsed.form, state.user!, state.website.id),
    );
  });

  // The review queue (issue 20 #4): an editor of this website approves the posts submitted for
  // review, or sends them back to their writer with a note.
  const reviewPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    extra: Record<string, unknown> = {},
  ) => {
    let pending;
    try {
      pending = await services.authoring.reviewQueue(state.user!, state.website.id);
    } catch (error) {
      if (error instanceof ForbiddenError) {
        return refusal(request, reply, 403, 'error.not_allowed', 'review.editors_only');
      }
      throw error;
    }
    reply.header('cache-control', 'private, no-store');
    const done = (request.query as Body).done;
    return kit.render(request, reply, 'post/review', {
      title: state.t('review.title'),
      csrf_token: await csrfToken(services, request, reply),
      notice:
        done === 'approved'
          ? state.t('review.published')
          : done === 'returned'
            ? state.t('review.returned')
            : null,
      pending: pending.map((post) => ({
        id: post.id,
        title: post.title,
        author: post.authorName ?? state.t('review.deleted_user'),
        submitted_at: post.submittedAt,
        edit_url: urlFor(state, `/post/edit/${post.id}`),
        action: urlFor(state, `/post/review/${post.id}`),
      })),
      ...extra,
      errors: localizeErrors((extra.errors ?? {}) as Errors, state.t),
    });
  };

  kit.page('GET', '/post/review', { name: 'posts.review' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    return reviewPage(request, reply, state);
  });

  kit.page('POST', '/post/review/:post', { name: 'posts.review.decide' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    const reason = await checkCsrf(services, request, { requireToken: () => true });
    if (reason) return refusal(request, reply, 403, 'error.form_refused', reason);
    const ref = (request.params as { post: string }).post;
    const parsed = reviewDecisionInput.safeParse(request.body ?? {});
    const again = (errors: Errors) => {
      reply.code(422);
      return reviewPage(request, reply, state, { errors, failed_id: Number(ref) });
    };
    if (!parsed.success) return again(byField(formatIssues(parsed.error.issues)));
    try {
      await services.authoring.review(
        state.user!,
        state.website.id,
        ref,
        parsed.data.decision,
        parsed.data.note,
      );
    } catch (error) {
      if (error instanceof ValidationError) return again(byField(validationMessages(error)));
      if (error instanceof ForbiddenError) {
        return refusal(request, reply, 403, 'error.not_allowed', 'review.editors_only');
      }
      if (error instanceof NotFoundError) {
        reply.header('cache-control', 'private, no-store');
        return kit.notFound(request, reply);
      }
      throw error;
    }
    const done = parsed.data.decision === 'approve' ? 'approved' : 'returned';
    return reply.redirect(`${urlFor(state, '/post/review')}?done=${done}`, 303);
  });
}
