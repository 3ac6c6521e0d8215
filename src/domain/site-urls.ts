// Absolute URLs of a website (in mail, feeds, sitemaps): its primary domain, with the scheme and port
// Folio is served on (APP_URL's). Never built from a request's Host header, which the client chooses.

export function siteOrigin(website: { domain: string }, appUrl: string): string {
  const served = new URL(appUrl);
  const origin = new URL(`${served.protocol}//${website.domain}`);
  origin.port = served.port; // '' for the scheme's default port
  return origin.origin;
}
