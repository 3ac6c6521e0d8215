// A browser-like client over the app's inject(): keeps cookies between requests (the session and
// the CSRF cookie), posts URL-encoded forms, and reads the form token out of a page.
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext } from './harness.js';

export type Form = Record<string, string | string[]>;

export class Visitor {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly ctx: TestContext,
    readonly host = 'site.test',
    /** The client address the app sees (attempt counters are per address). */
    readonly address = '127.0.0.1',
  ) {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as Array<{
      name: string;
      value: string;
      maxAge?: number;
      expires?: Date;
    }>) {
      const expired =
        cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() < Date.now());
      if (expired || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const cookie = this.cookieHeader();
    return this.remember(
      await this.ctx.request({
        method: 'GET',
        url,
        remoteAddress: this.address,
        headers: { host: this.host, ...(cookie ? { cookie } : {}), ...headers },
      }),
    );
  }

  async post(url: string, form: Form, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(key, item);
    }
    const cookie = this.cookieHeader();
    return this.remember(
      await this.ctx.request({
        method: 'POST',
        url,
        remoteAddress: this.address,
        payload: body.toString(),
        headers: {
          host: this.host,
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie } : {}),
          ...headers,
        },
      }),
    );
  }

  /** GETs the page and returns the form token it carries. */
  async token(url: string): Promise<string> {
    const response = await this.get(url);
    const token = tokenIn(response.body);
    if (!token) throw new Error(`no form token on ${url} (${response.statusCode})`);
    return token;
  }

  /** GETs the form page, then posts the form to `action` with the page's token. */
  async submit(page: string, action: string, form: Form, headers: Record<string, string> = {}) {
    const token = await this.token(page);
    return this.post(action, { _token: token, ...form }, headers);
  }

  /** Logs in through the form; throws unless it worked. */
  async logIn(email: string, password: string): Promise<void> {
    const response = await this.submit('/user/login', '/user/login/submit', { email, password });
    if (response.statusCode !== 303) throw new Error(`login failed: ${response.statusCode}`);
  }
}

export function tokenIn(html: string): string | undefined {
  return /name="_token" value="([^"]+)"/.exec(html)?.[1];
}
