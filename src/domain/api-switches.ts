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
