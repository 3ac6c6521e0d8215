// Guarded downloads of remote images (localize_images, spec 4.1 rule 3). A URL from a request body must
// never reach the machine's own network: only http(s); the address is checked after DNS resolution,
// at connect time (so a name that resolves differently the second time gains nothing), and again on
// every redirect, which is followed by hand; a timeout; a byte cap; image content types only.
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type * as Undici from 'undici';
import type { Agent } from 'undici';

/** Decides whether a resolved IP address may be contacted. */
export type AddressPolicy = (address: string) => boolean;

export interface SafeFetchOptions {
  /** Which resolved addresses may be contacted; default: public unicast addresses only. */
  allowAddress?: AddressPolicy;
  /** Whole download, headers and body, in milliseconds. */
  timeoutMs?: number;
  /** Largest body accepted, in bytes. */
  maxBytes?: number;
  maxRedirects?: number;
}

export interface FetchedImage {
  body: Buffer;
  contentType: string;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
}

export class SafeFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

// ---- Address classification ------------------------------------------------------------------

/** The 4 bytes of an IPv4 address, or null. */
/**
 * The default policy: public unicast addresses only, by ipaddr.js's maintained list of special
 * ranges (loopback, private, link-local, unique-local, site-local, CGNAT, multicast, reserved,
 * documentation, benchmarking, Teredo, ORCHID…). An IPv4 address carried in IPv6 (mapped
 * `::ffff:a.b.c.d` in any spelling, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
 * is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/%.*$/, ''); // an IPv6 zone id
  if (!ipaddr.isValid(plain) || !net.isIP(plain)) return false;
  const parsed = ipaddr.process(plain); // ::ffff:a.b.c.d becomes a.b.c.d
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'unicast') return true;
  const parts = v6.toByteArray();
  const embedded = (bytes: number[]) => ipaddr.fromByteArray(bytes).range() === 'unicast';
  // NAT64 (RFC 6052 well-known prefix) and 6to4 reach the IPv4 address they carry.
  if (range === 'rfc6052' && parts.slice(4, 12).every((byte) => byte === 0)) return embedded(parts.slice(12));
  if (range === '6to4') return embedded(parts.slice(2, 6));
  // Everything else special (::/96 IPv4-compatible included) is refused.
  return false;
}

// ---- The fetcher -------------------------------------------------------------------------------

const DEFAULTS = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

export class SafeFetcher {
  private allowAddress: AddressPolicy;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  /**
   * undici and its agent, made at the first download: undici (100 modules) is not loaded by a start
   * that fetches nothing.
   */
  private client: Promise<{ agent: Agent; request: typeof Undici.request }> | null = null;

  constructor(options: SafeFetchOptions = {}) {
    this.allowAddress = options.allowAddress ?? isPublicAddress;
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
    this.maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
  }

  /** Replaces the address policy (tests allow 127.0.0.1 for a fixture server). */
  setAddressPolicy(policy: AddressPolicy): void {
    this.allowAddress = policy;
    const old = this.client;
    this.client = null;
    void old?.then(({ agent }) => agent.close());
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).agent.close();
  }

  private connect(): Promise<{ agent: Agent; request: typeof Undici.request }> {
    this.client ??= import('undici').then(({ Agent, request }) => ({
      agent: this.createAgent(Agent),
      request,
    }));
    return this.client;
  }

  private createAgent(Agent: typeof Undici.Agent): Agent {
    // Every connection resolves through this lookup: the check happens on the address actually used.
    const lookup: LookupFunction = (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = addresses;
        const refused = list.find((entry) => !this.allowAddress(entry.address));
        if (refused || list.length === 0) {
          const err = new SafeFetchError(`refused address ${refused?.address ?? '(none)'} for ${hostname}`);
          return callback(err, '', 0);
        }
        if (options.all)
          return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        const first = list[0]!;
        callback(null, first.address, first.family);
      });
    };
    // undici follows no redirect unless told to: fetchImage follows them itself, checking each hop.
    return new Agent({ connect: { lookup, timeout: this.timeoutMs } });
  }

  /** Checks a URL before connecting: scheme, and the host when it is an IP literal (no DNS then). */
  private checkUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new SafeFetchError(`scheme ${url.protocol} is not allowed`);
    }
    if (url.username || url.password) throw new SafeFetchError('credentials in URLs are not allowed');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !this.allowAddress(host)) throw new SafeFetchError(`refused address ${host}`);
  }

  /** Downloads an image, or throws SafeFetchError saying why not. */
  async fetchImage(input: string): Promise<FetchedImage> {
    return this.download(input, { accept: 'image/*', agent: 'Folio image localizer', kind: 'image' });
  }

  /**
   * Downloads a small text answer (at most `maxBytes`) under the same guard: the domain check asks a
   * domain for Folio's token with it.
   */
  async fetchText(input: string, maxBytes = 4096): Promise<{ body: string; finalUrl: string }> {
    const fetched = await this.download(input, {
      accept: 'text/plain',
      agent: 'Folio domain check',
      kind: 'text',
      maxBytes,
    });
    return { body: fetched.body.toString('utf8'), finalUrl: fetched.finalUrl };
  }

  /**
   * Sends a POST (a webhook delivery) under the same guard: the address checked at connect time, no
   * redirect followed (a 3xx is an answer like any other), the whole exchange within `timeoutMs`, and
   * at most `maxBytes` of the answer read (the rest is dropped, not an error). A network failure, a
   * refused address or the timeout throws SafeFetchError.
   */
  async post(
    input: string,
    body: string,
    headers: Record<string, string>,
    options: { timeoutMs?: number; maxBytes?: number } = {},
  ): Promise<{ status: number; body: string; truncated: boolean }> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const maxBytes = options.maxBytes ?? 1024;
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new SafeFetchError('not a valid URL');
    }
    this.checkUrl(url);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const { agent, request } = await this.connect();
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal,
        body,
        // A connection per delivery: a kept-alive socket the receiver closed meanwhile would fail it.
        reset: true,
        headers: { 'user-agent': 'Folio webhooks', ...headers },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of response.body) {
        const part = chunk as Buffer;
        const room = maxBytes - size;
        if (part.length > room) {
          if (room > 0) chunks.push(part.subarray(0, room));
          truncated = true;
          response.body.destroy();
          break;
        }
        chunks.push(part);
        size += part.length;
      }
      return { status: response.statusCode, body: Buffer.concat(chunks).toString('utf8'), truncated };
    } catch (error) {
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      if (cause instanceof SafeFetchError) throw cause;
      const message =
        (cause as Error)?.name === 'TimeoutError' || signal.aborted
          ? `no answer within ${timeoutMs} ms`
          : `request failed: ${(cause as Error)?.message ?? String(cause)}`;
      throw new SafeFetchError(message);
    }
  }

  private async download(
    input: string,
    options: { accept: string; agent: string; kind: 'image' | 'text'; maxBytes?: number },
  ): Promise<FetchedImage> {
    const maxBytes = options.maxBytes ?? this.maxBytes;
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new SafeFetchError('not a valid URL');
    }
    const signal = AbortSignal.timeout(this.timeoutMs);
    for (let hop = 0; hop <= this.maxRedirects; hop++) {
      this.checkUrl(url);
      const { agent, request } = await this.connect();
      const response = await request(url, {
        method: 'GET',
        dispatcher: agent,
        signal,
        headers: { accept: options.accept, 'user-agent': options.agent },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      }).catch((error: unknown) => {
        const cause = error instanceof Error ? (error.cause ?? error) : error;
        throw cause instanceof SafeFetchError
          ? cause
          : new SafeFetchError(`download failed: ${(cause as Error)?.message ?? String(cause)}`);
      });
      if (response.statusCode >= 300 && response.statusCode < 400) {
        await response.body.dump();
        const location = response.headers.location;
        const target = Array.isArray(location) ? location[0] : location;
        if (!target) throw new SafeFetchError(`redirect ${response.statusCode} without a location`);
        url = new URL(target, url);
        continue;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new SafeFetchError(`HTTP ${response.statusCode}`);
      }
      const typeHeader = response.headers['content-type'];
      const contentType = (Array.isArray(typeHeader) ? typeHeader[0] : typeHeader) ?? '';
      if (options.kind === 'image' && !/^image\//i.test(contentType.trim())) {
        await response.body.dump();
        throw new SafeFetchError(`content type ${contentType || '(none)'} is not an image`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.body.destroy();
        throw new SafeFetchError(`${options.kind} larger than ${maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body) {
          size += (chunk as Buffer).length;
          if (size > maxBytes) {
            response.body.destroy();
            throw new SafeFetchError(`${options.kind} larger than ${maxBytes} bytes`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        if (error instanceof SafeFetchError) throw error;
        throw new SafeFetchError(`download failed: ${(error as Error).message}`);
      }
      return {
        body: Buffer.concat(chunks),
        contentType: contentType.split(';')[0]!.trim(),
        finalUrl: url.href,
      };
    }
    throw new SafeFetchError('too many redirects');
  }
}
