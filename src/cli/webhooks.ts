// `folio webhook:list` and `folio webhook:test ID` (issue 38): the installation's operator sees every
// webhook (never its secret) and sends one a test event, printed with the receiver's answer.
import type { Actor } from '../domain/policy.js';
import type { FaceServices } from '../services.js';

export const WEBHOOK_USAGE = `  webhook:list [--website ID|DOMAIN]
                                 print webhooks (every website's and the installation's, or one
                                 website's), with why Folio disabled one (JSON lines, no secrets)
  webhook:test ID                send a test event to a webhook now; prints the delivery (exit 1 when
                                 the receiver did not answer 2xx)`;

export interface WebhookCommandContext {
  services: FaceServices;
  actor: Actor;
  positionals: string[];
  /** The website of --website, resolved (undefined: not given). */
  websiteId: number | undefined;
  out: (line: string) => void;
  err: (line: string) => void;
  usage: (message: string) => Error;
}

export async function webhookCommand(command: string, ctx: WebhookCommandContext): Promise<number> {
  const { services, actor } = ctx;
  switch (command) {
    case 'webhook:list': {
      const hooks =
        ctx.websiteId === undefined
          ? await services.webhooks.listEverywhere(actor)
          : await services.webhooks.list(actor, ctx.websiteId);
      for (const hook of hooks) ctx.out(JSON.stringify(hook));
      return 0;
    }
    case 'webhook:test': {
      const [id] = ctx.positionals;
      if (!id || ctx.positionals.length !== 1 || !/^\d{1,10}$/.test(id)) {
        throw ctx.usage('usage: webhook:test ID');
      }
      const delivery = await services.webhooks.test(actor, Number(id));
      ctx.out(JSON.stringify(delivery));
      const ok = delivery.statusCode !== null && delivery.statusCode >= 200 && delivery.statusCode < 300;
      if (!ok) ctx.err(`folio: the receiver answered ${delivery.error ?? `HTTP ${delivery.statusCode}`}`);
      return ok ? 0 : 1;
    }
    default:
      throw ctx.usage(`unknown command ${command}`);
  }
}
