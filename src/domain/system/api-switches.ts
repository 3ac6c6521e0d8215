// The API's switches (spec section 5, R-A1..R-A8): settings that turn the API and each endpoint on or
// off. Their names are part of the contract; install turns them all on, the API's guard reads them.

/** The global switch: on until set. */
export const GLOBAL_SWITCH = 'enable_api_access';

/** Every switch an API endpoint may have, so that a first start can turn them all on. */
export const ENDPOINT_SWITCHES = [
  'svc_api_posts_index',
  'svc_api_posts_store',
  'svc_api_posts_update',
  'svc_api_posts_delete',
  'svc_api_posts_show',
  'svc_api_tag_index',
  'svc_api_tag_exist',
  'svc_api_tag_store',
  'enable_api_website',
  'svc_api_website_index',
  'svc_api_website_store',
  'svc_api_website_show',
  'svc_api_website_update',
  'svc_api_website_delete',
  'svc_api_website_add_domain',
  'svc_api_website_remove_domain',
  'enable_api_website_add_domain',
] as const;

/** How an endpoint authenticates (R-A3): the setting `<key>_should_auth`; absent means `simple`. */
export const AUTH_MODES = ['none', 'simple', 'basic'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];
export const authModeSetting = (key: string) => `${key}_should_auth`;

/** Endpoints with an auth mode but no switch of their own (the global switch covers them). */
export const AUTH_ONLY_ENDPOINTS = [
  'svc_api_menu_store',
  'svc_api_menu_sync',
  'svc_api_menu_show',
  'svc_api_update',
  'svc_api_update_progress',
] as const;

/** Switches that turn a group on or off (a model, or a veto) and have no auth mode of their own. */
const GROUP_SWITCHES = new Set<string>(['enable_api_website', 'enable_api_website_add_domain']);
export const hasAuthMode = (key: string) => !GROUP_SWITCHES.has(key);
