// Accounts of the public site (spec 4.8, R-F1 `frontend.users.*`): login (form and JSON), logout,
// registration confirmed by mail, password reset by mail, profile and settings. Every form carries the
// CSRF token and every submission checks it (forms.ts); login, registration and reset requests are
// counted per account (email) and per address; messages and response times never tell whether an
// email has an account; mail links are built from the website's primary domain, never the Host header.
import type { FrontendKit } from '../../index.js';
import { installVisitorLookup } from '../../session.js';
import { AccountPages } from './forms.js';
import { inviteRoutes } from './invites.js';
import { loginRoutes } from './login.js';
import { passwordResetRoutes } from './password-reset.js';
import { profileRoutes } from './profile.js';
import { registrationRoutes } from './registration.js';

export function accountRoutes(kit: FrontendKit): void {
  installVisitorLookup(kit);
  const pages = new AccountPages(kit);
  loginRoutes(pages);
  registrationRoutes(pages);
  passwordResetRoutes(pages);
  profileRoutes(pages);
  inviteRoutes(pages);
}
