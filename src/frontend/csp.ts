// The Content-Security-Policy of the public site's pages. Scripts and styles come from this site
// only (the themes ship no inline script); images, embedded frames and media may come from any
// https site (posts embed them). A website whose administrators added code of their own (head or
// body code, analytics: inline scripts, a tag manager) gets inline and https scripts too: that code
// is theirs to vouch for, and a policy that silently broke it would only be switched off.
import type { Website } from '../domain/websites.js';

const STRICT_SCRIPTS = "script-src 'self'";
const CUSTOM_SCRIPTS = "script-src 'self' 'unsafe-inline' https:";

function policy(scripts: string, connect: string): string {
  return [
    "default-src 'self'",
    scripts,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' https: http: data:",
    "media-src 'self' https:",
    "font-src 'self' https: data:",
    "frame-src 'self' https:",
    connect,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const STRICT = policy(STRICT_SCRIPTS, "connect-src 'self'");
const WITH_CUSTOM_CODE = policy(CUSTOM_SCRIPTS, "connect-src 'self' https:");

export function siteContentSecurityPolicy(website: Website): string {
  const { head_code: head, body_code: body, analytics } = website.fields;
  return [head, body, analytics].some((code) => typeof code === 'string' && code.trim() !== '')
    ? WITH_CUSTOM_CODE
    : STRICT;
}
