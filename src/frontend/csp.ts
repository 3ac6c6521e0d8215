// The Content-Security-Policy of the public site's pages. Scripts and styles come from this site
// only (the themes ship no inline script); images and media may come from any https site (posts
// embed them); frames only from the video players a post may embed (html-sanitizer.ts's PLAYER_HOSTS,
// the only frames the content sanitizers let through). A website whose administrators added code of
// their own (head or body code, analytics: inline scripts, a tag manager) gets inline and https
// scripts and frames too: that code is theirs to vouch for, and a policy that silently broke it would
// only be switched off.
import { PLAYER_HOSTS } from '../domain/text/html-sanitizer.js';
import type { Website } from '../domain/websites/store.js';

const STRICT_SCRIPTS = "script-src 'self'";
const CUSTOM_SCRIPTS = "script-src 'self' 'unsafe-inline' https:";

const PLAYERS = `frame-src 'self' ${PLAYER_HOSTS.map((host) => `https://${host}`).join(' ')}`;

function policy(scripts: string, connect: string, frames: string): string {
  return [
    "default-src 'self'",
    scripts,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' https: http: data:",
    "media-src 'self' https:",
    "font-src 'self' https: data:",
    frames,
    connect,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const STRICT = policy(STRICT_SCRIPTS, "connect-src 'self'", PLAYERS);
// The administrators' own code may frame what it likes (a tag manager's frame, a widget).
const WITH_CUSTOM_CODE = policy(CUSTOM_SCRIPTS, "connect-src 'self' https:", "frame-src 'self' https:");

export function siteContentSecurityPolicy(website: Website): string {
  const { head_code: head, body_code: body, analytics } = website.fields;
  return [head, body, analytics].some((code) => typeof code === 'string' && code.trim() !== '')
    ? WITH_CUSTOM_CODE
    : STRICT;
}
