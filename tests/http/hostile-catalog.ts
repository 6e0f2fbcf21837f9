/**
 * The catalogue of hostile request parts the generators draw from: content types, credentials,
 * methods and paths, each list with what the contract says about it.
 */

/** Content types the API must refuse (400): anything but JSON, and none at all. */
export const REFUSED_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=hostile',
  'application/xml',
  'application/octet-stream',
  'application/jsonx',
  'application/vnd.api+json',
  'json',
  '*/*',
  '',
  undefined,
];
/** JSON with parameters or odd spelling: accepting or refusing (400) are both defensible. */
export const LENIENT_TYPES = [
  'application/json; charset=latin1',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;',
  'application/json, text/plain',
];

/** Credentials that must be refused (401). `{key}` is the valid test key. */
export const REFUSED_AUTH = [
  '',
  'Bearer',
  'Bearer ',
  'Basic dXNlcjpwYXNz',
  'Basic {key}',
  'Token {key}',
  '{key}',
  'Bearer {key}x',
  'Bearer {key}{key}',
  'Bearer {key} {key}',
  'Bearer {short}',
  'Bearer mv_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'Bearer mv_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'Bearer 😀',
  'Bearer \u0000{key}',
  'Bearer {key}\u0000',
  `Bearer ${'A'.repeat(10_000)}`,
  "Bearer ' OR 1=1 --",
  'Bearer null',
  'Bearer undefined',
];
/** Credentials whose acceptance the contract leaves open (the scheme is case-insensitive per RFC 9110). */
export const LENIENT_AUTH = [
  'bearer {key}',
  'BEARER {key}',
  'Bearer  {key}',
  'Bearer {key} ',
  ' Bearer {key}',
];

export const OTHER_METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
export const ODD_PATHS = [
  '/api/v1/verify/',
  '/api/v1//verify',
  '/api/v1/VERIFY',
  '/api/v1/verify%00',
  '/api/v1/verify/bulk/',
  '/api/v1/verify/../verify',
  '/api/v1/%E0%A4%A',
  '/api/v2/verify',
  '/api/v1/verify/x',
  `/api/v1/${'a'.repeat(5000)}`,
  '/api/v1/verify?email=a@example.com',
  '/api/v1/verify?__proto__[x]=1',
];
