// Every public page type of the default theme is valid HTML (issue 22): html-validate's standard
// preset, 0 errors, on pages fetched from a live server as a browser would (cookies, form tokens).
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { HtmlValidate } from 'html-validate';
import { listen, servedContext } from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { seedThemeSite } from '../support/theme-site.js';
import type { ThemeSite } from '../support/theme-site.js';
import { tokenIn } from '../support/visitor.js';

const HOST = 'valid.test';

interface Answer {
  status: number;
  body: string;
  location?: string;
}

/** A client of the live server that keeps its cookies, as a browser does. */
class LiveClient {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly server: RunningServer) {}

  request(path: string, form?: Record<string, string>): Promise<Answer> {
    const payload = form ? new URLSearchParams(form).toString() : undefined;
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.server.port,
          path,
          method: form ? 'POST' : 'GET',
          headers: {
            host: `${HOST}:${this.server.port}`,
            ...(cookie ? { cookie } : {}),
            ...(form
              ? { 'content-type': 'application/x-www-form-urlencoded', origin: this.server.origin(HOST) }
              : {}),
          },
        },
        (res) => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair = ''] = line.split(';');
            const at = pair.indexOf('=');
            const value = pair.slice(at + 1);
            if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, at));
            else this.cookies.set(pair.slice(0, at), value);
          }
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, location: res.headers.location }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}

describe('html-validate (standard preset) on every public page type', () => {
  let ctx: TestContext;
  let server: RunningServer;
  let site: ThemeSite;
  const validator = new HtmlValidate({ extends: ['html-validate:standard'] });

  before(async () => {
    let port: number;
    ({ ctx, port } = await servedContext());
    site = await seedThemeSite(ctx, HOST);
    server = await listen(ctx, port);
  });
  after(() => ctx.close());

  /** The errors html-validate finds in a page, one line each. */
  async function errorsOf(html: string): Promise<string[]> {
    const report = await validator.validateString(html);
    return report.results.flatMap((result) =>
      result.messages
        .filter((message) => message.severity === 2)
        .map((message) => `${message.line}:${message.column} ${message.ruleId}: ${message.message}`),
    );
  }

  it('reading pages, account forms, the 404 and a comment form with its errors: 0 errors', async () => {
    const reader = new LiveClient(server);
    const pages: Array<[string, Answer, number]> = [];
    for (const [name, path] of Object.entries(site.paths)) {
      pages.push([name, await reader.request(path), name === 'notFound' ? 404 : 200]);
    }
    // A comment without text or name: the form again, with the messages tied to their inputs.
    const post = await reader.request(site.paths.post);
    const commentForm = /<form method="post" action="([^"]+)" class="comment-form"[^]*?<\/form>/.exec(
      post.body,
    );
    assert.ok(commentForm, 'the post has a comment form');
    const hidden = Object.fromEntries(
      [...commentForm[0].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    pages.push([
      'comment errors',
      await reader.request(commentForm[1] ?? '', {
        ...hidden,
        content: '',
        name: '',
        email: 'not an address',
      }),
      422,
    ]);
    // Signed in: the profile, and a post as its author sees it (edit links, the comment form's token).
    const writer = new LiveClient(server);
    const login = await writer.request(site.paths.login);
    const signedIn = await writer.request('/user/login/submit', {
      _token: tokenIn(login.body) ?? '',
      email: site.adminEmail,
      password: site.password,
    });
    assert.equal(signedIn.status, 303, 'signed in');
    pages.push(['profile', await writer.request('/user/profile'), 200]);
    pages.push(['post, signed in', await writer.request(site.paths.post), 200]);

    const failures: string[] = [];
    for (const [name, answer, status] of pages) {
      assert.equal(answer.status, status, `${name}: HTTP ${answer.status}`);
      assert.match(answer.body, /^<!doctype html>/i, `${name} is a page`);
      for (const error of await errorsOf(answer.body)) failures.push(`${name}: ${error}`);
    }
    assert.equal(pages.length, 13);
    assert.deepEqual(failures, []);
  });

  it('the validator is awake: it finds the errors it is there to find', async () => {
    const page = (body: string) =>
      `<!doctype html><html lang="en"><head><title>x</title></head><body>${body}</body></html>`;
    assert.match((await errorsOf(page('<p>a</div>'))).join('\n'), /close-order/);
    assert.match((await errorsOf(page('<p id="a">a</p><p id="a">b</p>'))).join('\n'), /no-dup-id/);
    assert.deepEqual(await errorsOf(page('<p>fine</p>')), []);
  });
});
