// Webhooks (issue 38): managed through API v2 by site admins (a website's) and administrators (the
// installation's); a committed change becomes one signed delivery per webhook (Standard Webhooks,
// checked by the `standardwebhooks` package in a local receiver), retried after 500s and timeouts,
// logged, redelivered, tested; the SSRF guard refuses loopback unless an administrator allowed the
// host; a webhook failing for a day is disabled with the reason; an event told twice, or left in the
// outbox by a node that died between commit and telling, is delivered once, also with two app nodes
// on one database.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { buildApp } from '../../src/app.js';
import { PostScheduler } from '../../src/domain/posts/scheduler.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { WEBHOOK_ALLOWED_HOSTS_SETTING, WEBHOOK_MAX_ATTEMPTS } from '../../src/domain/webhooks/index.js';
import { createServices } from '../../src/services.js';
import { createTestContext, manualClock, testConfig, usingPostgres } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  json: {
    event: string;
    website: { id: number } | null;
    resource_type: string | null;
    resource: Record<string, unknown>;
  };
}

/** A receiver on 127.0.0.1: records every request; `answer` decides the reply. */
class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received, res: ServerResponse) => void = (_request, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok thanks');
  };
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const entry = { headers: req.headers, body, json: JSON.parse(body) as Received['json'] };
        this.received.push(entry);
        this.answer(entry, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  reset(): void {
    this.received.length = 0;
    this.answer = (_request, res) => res.writeHead(200).end('ok thanks');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('webhooks', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let editor: TestUser;
  const receiver = new Receiver();
  const clock = manualClock(new Date());

  before(async () => {
    ctx = await createTestContext({ clock });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Club', domain: 'club.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    editor = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    await receiver.start();
    await ctx.services.settings.set(WEBHOOK_ALLOWED_HOSTS_SETTING, '127.0.0.1');
  });
  beforeEach(async () => {
    receiver.reset();
    // Earlier tests' webhooks are gone: each test counts its own deliveries.
    await ctx.services.database.db.deleteFrom('webhooks').execute();
    await ctx.services.database.db.deleteFrom('jobs').execute();
  });
  after(async () => {
    await receiver.stop();
    await ctx.close();
  });

  const call = (as: TestUser, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host: 'club.test', authorization: `Bearer ${as.token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  async function hook(events: string[], as = siteAdmin, on: number | null = site) {
    const created = await call(as, 'POST', on === null ? '/webhooks' : `/websites/${on}/webhooks`, {
      url: receiver.url,
      events,
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().data as { id: number; secret: string; website_id: number | null };
  }

  /** Runs the due jobs until none is left (deliveries may queue nothing more). */
  const work = async () => {
    await ctx.services.runner.settle();
    while ((await ctx.services.jobs.runDue()) > 0);
  };

  const publish = async (title: string) => {
    const created = await call(editor, 'POST', '/posts', {
      title,
      content: '<p>Hi</p>',
      status: 'published',
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().data.id as number;
  };

  it('site admins manage their website\u2019s webhooks, administrators the installation\u2019s; the secret is shown once', async () => {
    const created = await hook(['post.published']);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/=]{20,}$/);
    assert.equal(created.website_id, site);
    const shown = await call(siteAdmin, 'GET', `/webhooks/${created.id}`);
    assert.equal(shown.statusCode, 200);
    assert.equal('secret' in shown.json().data, false, 'never shown again');
    const listed = await call(siteAdmin, 'GET', `/websites/${site}/webhooks`);
    assert.deepEqual(
      listed.json().data.map((entry: { id: number }) => entry.id),
      [created.id],
    );
    assert.equal(JSON.stringify(listed.json()).includes(created.secret), false);
    // An editor, another website's people, and site admins for the installation: refused.
    assert.equal((await call(editor, 'GET', `/websites/${site}/webhooks`)).statusCode, 403);
    assert.equal((await call(editor, 'GET', `/webhooks/${created.id}`)).statusCode, 404);
    assert.equal(
      (
        await call(siteAdmin, 'POST', `/websites/${other}/webhooks`, {
          url: receiver.url,
          events: ['tag.created'],
        })
      ).statusCode,
      403,
    );
    assert.equal(
      (await call(siteAdmin, 'POST', '/webhooks', { url: receiver.url, events: ['tag.created'] })).statusCode,
      403,
    );
    const installation = await hook(['user.registered'], admin, null);
    assert.equal(installation.website_id, null);
    // Bad input: a clear 422 per field.
    const bad = await call(siteAdmin, 'POST', `/websites/${site}/webhooks`, {
      url: 'ftp://example.com/x',
      events: ['post.eaten'],
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.ok(bad.json().errors.url && bad.json().errors['events.0'], bad.body);
    assert.equal(
      (await call(siteAdmin, 'POST', `/websites/${site}/webhooks`, { url: receiver.url, events: [] }))
        .statusCode,
      422,
    );
    // Changed and deleted by its manager, audited.
    const changed = await call(siteAdmin, 'PATCH', `/webhooks/${created.id}`, { events: ['post.deleted'] });
    assert.deepEqual(changed.json().data.events, ['post.deleted']);
    assert.equal((await call(siteAdmin, 'DELETE', `/webhooks/${created.id}`)).statusCode, 204);
    assert.equal((await call(siteAdmin, 'GET', `/webhooks/${created.id}`)).statusCode, 404);
    const audit = await ctx.services.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('resource_type', '=', 'webhook')
      .execute();
    const actions = audit.map((row) => row.action);
    for (const action of ['webhook.create', 'webhook.update', 'webhook.delete'])
      assert.ok(actions.includes(action));
  });

  it('tells a post published, updated, unpublished and deleted, signed per Standard Webhooks, with the resource as API v2 shows it', async () => {
    const created = await hook(['post.published', 'post.updated', 'post.unpublished', 'post.deleted']);
    const postId = await publish('Signed news');
    await work();
    assert.equal(receiver.received.length, 1);
    const first = receiver.received[0]!;
    // The specification's algorithm, as the `standardwebhooks` package implements it.
    const verified = new StandardWebhook(created.secret).verify(first.body, {
      'webhook-id': String(first.headers['webhook-id']),
      'webhook-timestamp': String(first.headers['webhook-timestamp']),
      'webhook-signature': String(first.headers['webhook-signature']),
    }) as Received['json'];
    assert.equal(verified.event, 'post.published');
    assert.equal(first.headers['content-type'], 'application/json');
    assert.deepEqual(first.json.website, { id: site, domain: 'club.test', name: 'Club' });
    assert.equal(first.json.resource_type, 'post');
    assert.equal(first.json.resource.id, postId);
    assert.equal(first.json.resource.title, 'Signed news');
    assert.deepEqual(first.json.resource.website_ids, [site]);
    // A wrong secret or a changed body does not verify.
    assert.throws(() =>
      new StandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(first.body, {
        'webhook-id': String(first.headers['webhook-id']),
        'webhook-timestamp': String(first.headers['webhook-timestamp']),
        'webhook-signature': String(first.headers['webhook-signature']),
      }),
    );

    assert.equal(
      (await call(editor, 'PATCH', `/posts/${postId}`, { title: 'Signed news, again' })).statusCode,
      200,
    );
    assert.equal((await call(editor, 'PATCH', `/posts/${postId}`, { status: 'draft' })).statusCode, 200);
    assert.equal((await call(editor, 'DELETE', `/posts/${postId}`)).statusCode, 204);
    await work();
    assert.deepEqual(
      receiver.received.map((entry) => entry.json.event),
      ['post.published', 'post.updated', 'post.unpublished', 'post.deleted'],
    );
    assert.deepEqual(receiver.received[3]!.json.resource, { id: postId });
    const ids = receiver.received.map((entry) => entry.headers['webhook-id']);
    assert.equal(new Set(ids).size, 4, 'one message id per event');
    // The delivery log holds each attempt.
    const log = await call(siteAdmin, 'GET', `/webhooks/${created.id}/deliveries`);
    assert.equal(log.statusCode, 200);
    assert.equal(log.json().data.length, 4);
    assert.equal(log.json().data[0].status_code, 200);
    assert.equal(log.json().data[0].response_body, 'ok thanks');
    assert.equal(log.json().data[0].attempt, 1);
  });

  it('sends a test event, redelivers a logged message with the same id, and limits what it keeps of an answer', async () => {
    const created = await hook(['post.published']);
    receiver.answer = (_request, res) => res.writeHead(200).end('x'.repeat(5000));
    const tested = await call(siteAdmin, 'POST', `/webhooks/${created.id}/test`);
    assert.equal(tested.statusCode, 200, tested.body);
    assert.equal(tested.json().data.event, 'webhook.test');
    assert.equal(tested.json().data.status_code, 200);
    assert.equal(tested.json().data.response_body.length, 1024);
    assert.equal(receiver.received[0]!.json.event, 'webhook.test');
    new StandardWebhook(created.secret).verify(receiver.received[0]!.body, {
      'webhook-id': String(receiver.received[0]!.headers['webhook-id']),
      'webhook-timestamp': String(receiver.received[0]!.headers['webhook-timestamp']),
      'webhook-signature': String(receiver.received[0]!.headers['webhook-signature']),
    });
    const again = await call(
      siteAdmin,
      'POST',
      `/webhooks/${created.id}/deliveries/${tested.json().data.id}/redeliver`,
    );
    assert.equal(again.statusCode, 202, again.body);
    await work();
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
    assert.equal(receiver.received[1]!.body, receiver.received[0]!.body);
    assert.equal(
      (await call(siteAdmin, 'POST', `/webhooks/${created.id}/deliveries/999999/redeliver`)).statusCode,
      404,
    );
    assert.equal((await call(editor, 'POST', `/webhooks/${created.id}/test`)).statusCode, 404);
  });

  it('tells only the events a webhook asked for, of its own website (the installation\u2019s hear every website)', async () => {
    await hook(['post.deleted']);
    const elsewhere = await call(siteAdmin, 'GET', `/websites/${other}/webhooks`);
    assert.equal(elsewhere.statusCode, 403);
    const everywhere = await hook(['tag.created', 'post.published'], admin, null);
    await publish('Not for the deleted-only hook');
    const tag = await call(admin, 'POST', '/tags', {
      name: 'Hooked',
      type: 'post_tag',
      website_ids: [other],
    });
    assert.equal(tag.statusCode, 201, tag.body);
    await work();
    assert.deepEqual(receiver.received.map((entry) => entry.json.event).sort(), [
      'post.published',
      'tag.created',
    ]);
    const tagged = receiver.received.find((entry) => entry.json.event === 'tag.created')!;
    assert.equal(tagged.json.resource.name, 'Hooked');
    assert.ok(everywhere.id);
  });

  it('tells an import once, as website.imported with its counts, to the website it went into (not one event per record)', async () => {
    await hook(['website.imported', 'post.published', 'tag.created']);
    const elsewhere = await hook(['website.imported'], admin, other);
    const fixture = new URL('../fixtures/ghost/ghost-5.json', import.meta.url).pathname;
    const report = await ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, fixture, {
      websiteId: site,
      dryRun: false,
      noMedia: true,
    });
    assert.ok(report.created.posts! >= 1, JSON.stringify(report));
    await work();
    assert.deepEqual(
      receiver.received.map((entry) => entry.json.event),
      ['website.imported'],
      'the posts and tags it brought are not told one by one',
    );
    const told = receiver.received[0]!.json;
    assert.equal(told.website?.id, site);
    assert.equal(told.resource_type, 'import');
    assert.equal(told.resource.format, 'ghost');
    assert.deepEqual(told.resource.created, report.created);
    assert.deepEqual(told.resource.websites, [site]);
    assert.equal(told.resource.media_files, report.media_files);
    assert.ok(elsewhere.id, 'the other website\u2019s webhook heard nothing');
    // A dry run writes nothing and tells nothing.
    receiver.reset();
    await ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, fixture, {
      websiteId: site,
      dryRun: true,
      noMedia: true,
    });
    await work();
    assert.equal(receiver.received.length, 0);
    const audit = await ctx.services.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('resource_type', '=', 'import')
      .execute();
    assert.deepEqual(
      audit.map((row) => row.action),
      ['import.ghost'],
    );
  });

  it('retries after a 500 and after a timeout, with backoff, and logs every attempt', async () => {
    const created = await hook(['post.published']);
    ctx.services.webhooks.setTimeoutMs(300);
    let calls = 0;
    receiver.answer = (_request, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(500).end('database down');
      else if (calls === 2) setTimeout(() => res.writeHead(200).end('late'), 1500);
      else res.writeHead(204).end();
    };
    await publish('Flaky receiver');
    await work();
    assert.equal(calls, 1);
    let jobs = await ctx.services.jobs.list();
    assert.equal(jobs[0]!.status, 'queued');
    assert.equal(jobs[0]!.lastError, `webhook ${created.id}: HTTP 500`);
    await work();
    assert.equal(calls, 1, 'not before the backoff');
    clock.advance(31_000);
    await work();
    assert.equal(calls, 2);
    jobs = await ctx.services.jobs.list();
    assert.match(jobs[0]!.lastError ?? '', /no answer within 300 ms/);
    clock.advance(61_000);
    await work();
    assert.equal(calls, 3);
    assert.equal((await ctx.services.jobs.list())[0]!.status, 'done');
    const log = (await call(siteAdmin, 'GET', `/webhooks/${created.id}/deliveries`)).json().data as {
      attempt: number;
      status_code: number | null;
      error: string | null;
      message_id: string;
      request_body: string;
    }[];
    assert.deepEqual(
      log.map((entry) => [entry.attempt, entry.status_code]),
      [
        [3, 204],
        [2, null],
        [1, 500],
      ],
    );
    assert.equal(new Set(log.map((entry) => entry.message_id)).size, 1, 'one message, three attempts');
    assert.equal(new Set(log.map((entry) => entry.request_body)).size, 1, 'the same body each time');
    assert.equal((await call(siteAdmin, 'GET', `/webhooks/${created.id}`)).json().data.failures, 0);
    ctx.services.webhooks.setTimeoutMs(5000);
  });

  it('disables a webhook whose message failed for about a day, and says why; enabling it again forgets the failures', async () => {
    const created = await hook(['post.published']);
    receiver.answer = (_request, res) => res.writeHead(503).end('maintenance');
    await publish('Never heard');
    for (let attempt = 0; attempt < WEBHOOK_MAX_ATTEMPTS; attempt += 1) {
      await work();
      clock.advance(7 * 3_600_000);
    }
    assert.equal(receiver.received.length, WEBHOOK_MAX_ATTEMPTS);
    const shown = (await call(siteAdmin, 'GET', `/webhooks/${created.id}`)).json().data;
    assert.equal(shown.active, false);
    assert.equal(shown.failures, WEBHOOK_MAX_ATTEMPTS);
    assert.match(shown.disabled_reason, /failed 14 times .* \(last: HTTP 503\)/);
    assert.equal((await ctx.services.jobs.list({ status: 'failed' })).length, 1);
    // Disabled: new events are not queued for it.
    await publish('While disabled');
    await work();
    assert.equal(receiver.received.length, WEBHOOK_MAX_ATTEMPTS);
    const enabled = await call(siteAdmin, 'PATCH', `/webhooks/${created.id}`, { active: true });
    assert.equal(enabled.json().data.active, true);
    assert.equal(enabled.json().data.failures, 0);
    assert.equal(enabled.json().data.disabled_reason, null);
  });

  it('refuses loopback and private addresses unless an administrator allowed the host (SSRF guard)', async () => {
    const created = await hook(['post.published']);
    await ctx.services.settings.set(WEBHOOK_ALLOWED_HOSTS_SETTING, 'hooks.example.com');
    try {
      const tested = await call(siteAdmin, 'POST', `/webhooks/${created.id}/test`);
      assert.equal(tested.statusCode, 200);
      assert.equal(tested.json().data.status_code, null);
      assert.match(tested.json().data.error, /refused address 127\.0\.0\.1/);
      assert.equal(receiver.received.length, 0);
      // Site admins cannot allow a host: it is an installation setting.
      const allowed = await call(siteAdmin, 'PATCH', '/settings', {
        [WEBHOOK_ALLOWED_HOSTS_SETTING]: '127.0.0.1',
      });
      assert.equal(allowed.statusCode, 403);
    } finally {
      await ctx.services.settings.set(WEBHOOK_ALLOWED_HOSTS_SETTING, '127.0.0.1');
    }
  });

  it('queues an event told twice once per webhook (unique key outbox id + webhook id)', async () => {
    const created = await hook(['post.published', 'post.updated']);
    const postId = await publish('Told twice');
    await work();
    assert.equal(receiver.received.length, 1);
    const event = {
      action: 'post.update',
      resourceType: 'post',
      resourceId: String(postId),
      websiteIds: [site],
      userId: null,
      apiKeyId: null,
      surface: 'api-v2',
      requestId: null,
      at: new Date().toISOString(),
    };
    await ctx.services.webhooks.enqueue(event, 987_654);
    await ctx.services.webhooks.enqueue(event, 987_654);
    await work();
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[1]!.headers['webhook-id'], `msg_987654_${created.id}`);
  });

  it('delivers an event a dead node committed but never told exactly once, with two nodes draining and working', async () => {
    await hook(['post.published', 'post.updated']);
    const postId = await publish('Before the crash');
    await work();
    receiver.reset();
    // What a node killed between commit and telling leaves: the outbox row of its event.
    const event = {
      action: 'post.update',
      resourceType: 'post',
      resourceId: String(postId),
      websiteIds: [site],
      userId: editor.id,
      apiKeyId: null,
      surface: 'api-v2',
      requestId: null,
      at: clock.now().toISOString(),
    };
    await ctx.services.database.db
      .insertInto('outbox')
      .values({
        created_at: new Date(clock.now().getTime() - 60_000).toISOString(),
        topic: 'event',
        payload: JSON.stringify(event),
      })
      .execute();
    // A second app node on the same database (another process in production).
    const second = createServices(testConfig(ctx.database.url), {
      pgSchema: ctx.database.pgSchema,
      clock,
      warn: () => undefined,
    });
    try {
      second.webhooks.renderResources(async () => null);
      const told = await Promise.all([ctx.services.runner.drain(), second.runner.drain()]);
      assert.equal(told[0] + told[1], 1, 'one node tells it');
      // Told again (a drain after a lapsed claim): still one job.
      const [row] = await ctx.services.database.db.selectFrom('jobs').select('unique_key').execute();
      const outboxId = Number(row!.unique_key!.split(':')[1]);
      await second.webhooks.enqueue(event, outboxId);
      await Promise.all([ctx.services.jobs.runDue(), second.jobs.runDue(), ctx.services.jobs.runDue()]);
      await work();
      assert.equal(receiver.received.length, 1);
      assert.equal(receiver.received[0]!.json.event, 'post.updated');
      assert.equal((await ctx.services.database.db.selectFrom('outbox').selectAll().execute()).length, 0);
    } finally {
      await second.close();
    }
  });

  it('delivers each message once when two app nodes work the queue at the same time', async () => {
    const hooks = [await hook(['post.published']), await hook(['post.published'])];
    const second = createServices(testConfig(ctx.database.url), {
      pgSchema: ctx.database.pgSchema,
      clock,
      warn: () => undefined,
    });
    try {
      receiver.answer = (_request, res) => setTimeout(() => res.writeHead(200).end('ok'), 20);
      for (let i = 0; i < 5; i += 1) await publish(`Busy ${i}`);
      await ctx.services.runner.settle();
      await Promise.all([
        ctx.services.jobs.runDue(),
        second.jobs.runDue(),
        ctx.services.jobs.runDue(),
        second.jobs.runDue(),
      ]);
      await work();
      assert.equal(receiver.received.length, 10);
      assert.equal(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size, 10);
      assert.ok(hooks.length === 2);
    } finally {
      await second.close();
    }
  });

  it('tells a scheduled post published once when two nodes run the scheduler', async () => {
    await hook(['post.published', 'post.updated']);
    const at = new Date(clock.now().getTime() + 10 * 60_000).toISOString();
    const created = await call(editor, 'POST', '/posts', {
      title: 'Later news',
      content: '<p>Soon</p>',
      status: 'scheduled',
      published_at: at,
    });
    assert.equal(created.statusCode, 201, created.body);
    const postId = created.json().data.id as number;
    await work();
    assert.deepEqual(
      receiver.received.map((entry) => entry.json.event),
      ['post.updated'],
      'scheduled: not public yet',
    );
    // Two app nodes on PostgreSQL; on SQLite (one node by design: a second connection's writer would
    // wait synchronously, holding this process) two schedulers of one node.
    const second = usingPostgres
      ? createServices(testConfig(ctx.database.url), {
          pgSchema: ctx.database.pgSchema,
          clock,
          warn: () => undefined,
        })
      : ctx.services;
    // A serving node builds the app: API v2 tells its webhooks how to show resources.
    const secondApp = second === ctx.services ? null : await buildApp(second, { logger: false });
    try {
      const nodes = [ctx.services, second].map(
        (services) =>
          new PostScheduler(services.posts, {
            announce: { runner: services.runner, audit: services.audit, changes: services.changes },
          }),
      );
      clock.advance(11 * 60_000);
      const published = await Promise.all(nodes.map((node) => node.tick()));
      assert.deepEqual(published.flat(), [postId], 'one node publishes it');
      await Promise.all([ctx.services.runner.settle(), second.runner.settle()]);
      await Promise.all([ctx.services.jobs.runDue(), second.jobs.runDue()]);
      await work();
    } finally {
      await secondApp?.close();
      if (second !== ctx.services) await second.close();
    }
    assert.deepEqual(
      receiver.received.map((entry) => entry.json.event),
      ['post.updated', 'post.published'],
    );
    assert.equal(receiver.received[1]!.json.resource.title, 'Later news');
    const audited = await ctx.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'surface'])
      .where('resource_type', '=', 'post')
      .where('resource_id', '=', String(postId))
      .where('action', '=', 'post.publish')
      .execute();
    assert.deepEqual(audited, [{ action: 'post.publish', surface: 'system' }]);
  });

  it('keeps the delivery log and done jobs for 30 days (hourly upkeep); failed jobs stay', async () => {
    const created = await hook(['post.published']);
    await publish('Logged');
    await work();
    await call(siteAdmin, 'POST', `/webhooks/${created.id}/test`);
    assert.equal((await ctx.services.webhooks.deliveries(INSTALLATION_OPERATOR, created.id)).length, 2);
    const failed = (await ctx.services.jobs.enqueue('never-worked', {}, { maxAttempts: 1 }))!;
    await ctx.services.database.db
      .updateTable('jobs')
      .set({ status: 'failed' })
      .where('id', '=', failed)
      .execute();
    clock.advance(29 * 86_400_000);
    await ctx.services.webhooks.prune();
    assert.equal((await ctx.services.webhooks.deliveries(INSTALLATION_OPERATOR, created.id)).length, 2);
    clock.advance(2 * 86_400_000);
    await ctx.services.webhooks.prune();
    assert.equal((await ctx.services.webhooks.deliveries(INSTALLATION_OPERATOR, created.id)).length, 0);
    const left = await ctx.services.jobs.list();
    assert.deepEqual(
      left.map((job) => [job.id, job.status]),
      [[failed, 'failed']],
    );
  });

  it('administrators list background jobs with their errors and retry a failed one (API v2 jobs)', async () => {
    await hook(['post.published']);
    receiver.answer = (_request, res) => res.writeHead(500).end('no');
    await publish('Job to see');
    await work();
    const listed = await call(admin, 'GET', '/jobs?status=queued');
    assert.equal(listed.statusCode, 200, listed.body);
    const job = listed.json().data[0];
    assert.equal(job.queue, 'webhook.deliver');
    assert.match(job.last_error, /HTTP 500/);
    assert.equal((await call(siteAdmin, 'GET', '/jobs')).statusCode, 403);
    assert.equal((await call(admin, 'GET', '/jobs?status=nope')).statusCode, 422);
    receiver.answer = (_request, res) => res.writeHead(200).end('ok');
    assert.equal((await call(admin, 'POST', `/jobs/${job.id}/retry`)).statusCode, 204);
    await work();
    assert.equal((await call(admin, 'GET', '/jobs?status=done')).json().data[0].id, job.id);
    assert.equal((await call(admin, 'POST', '/jobs/999999/retry')).statusCode, 404);
    assert.equal((await call(siteAdmin, 'POST', `/jobs/${job.id}/retry`)).statusCode, 403);
  });
});
