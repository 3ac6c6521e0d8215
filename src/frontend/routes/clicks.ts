// Click analytics (spec 4.8, R-F1 `frontend.clicks.record`): the beacon of themes/default/assets/
// clicks.js posts `type` (post|link|page), `id` and `kind` (view|click|like|fav; default view).
// Answers are JSON. Order: same-origin (403) -> bot user agent (200, not recorded) -> validation
// (422) -> rate limit (429) -> one INSERT … SELECT (404 when the target is not shown on this site).
import { CLICK_KINDS, CLICK_TYPES, isBot } from '../../domain/community/clicks.js';
import type { ClickKind, ClickType } from '../../domain/community/clicks.js';
import { checkCsrf } from '../../http/csrf.js';
import type { FrontendKit } from '../index.js';
import { rateLimited, visitorIdentity } from '../visitor-id.js';

function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? value.trim() : undefined;
}

export function clickRoutes(kit: FrontendKit): void {
  const { services } = kit;

  kit.page(
    'POST',
    '/clicks/record',
    { name: 'clicks.record', localized: false },
    async (request, reply, state) => {
      // A beacon carries no form token; the same-origin check keeps other sites from counting.
      const refusal = await checkCsrf(services, request, { requireToken: () => false });
      if (refusal) return reply.code(403).send({ status: 'fail', message: refusal });
      if (isBot(request.headers['user-agent'])) {
        return reply.send({ status: 'success', recorded: false });
      }

      const body = request.body;
      const type = field(body, 'type') ?? '';
      const id = field(body, 'id') ?? '';
      const kind = field(body, 'kind') || 'view';
      const errors: Record<string, string[]> = {};
      if (type === '') errors.type = ['The type field is required.'];
      else if (!(CLICK_TYPES as readonly string[]).includes(type))
        errors.type = ['The selected type is invalid.'];
      if (id === '') errors.id = ['The id field is required.'];
      else if (!/^\d{1,16}$/.test(id)) errors.id = ['The id must be an integer.'];
      if (!(CLICK_KINDS as readonly string[]).includes(kind)) errors.kind = ['The selected kind is invalid.'];
      if (Object.keys(errors).length > 0) {
        return reply.code(422).send({ status: 'fail', message: 'Validation failed', errors });
      }

      const identity = await visitorIdentity(services, request, state.user);
      if ((await rateLimited(services, reply, 'clicks', identity.clientHash)) !== null) {
        return reply.send({ status: 'fail', message: 'Too many requests' });
      }
      const outcome = await services.clicks.record({
        type: type as ClickType,
        id: Number(id),
        kind: kind as ClickKind,
        userId: state.user?.id ?? null,
        visitorHash: identity.visitorHash,
        websiteId: state.website.id,
      });
      if (outcome === 'not_found') return reply.code(404).send({ status: 'fail', message: 'Not found' });
      return reply.send({ status: 'success', recorded: outcome === 'recorded' });
    },
  );
}
