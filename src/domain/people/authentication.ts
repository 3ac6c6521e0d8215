// Who a request's credential belongs to: an API token or key (API v1, API v2), or an email and password
// (API v1's basic auth, the site's sign-in). The faces ask here; attempt limits are the login throttle's.
import { authenticateCredential } from './api-keys.js';
import type { ApiKey, ApiKeysService } from './api-keys.js';
import type { User, UsersService } from './users.js';

export class Authentication {
  constructor(
    private readonly apiKeys: Pick<ApiKeysService, 'authenticate'>,
    private readonly users: Pick<UsersService, 'authenticateToken' | 'authenticatePassword'>,
  ) {}

  /** The user of an API token or key (with the key, which narrows what the user may do), or null. */
  credential(credential: string): Promise<{ user: User; key: ApiKey | null } | null> {
    return authenticateCredential({ apiKeys: this.apiKeys, users: this.users }, credential);
  }

  /** The active user with this email and password, or null. */
  password(email: string, password: string): Promise<User | null> {
    return this.users.authenticatePassword(email, password);
  }
}
