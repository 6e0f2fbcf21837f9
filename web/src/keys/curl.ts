/** The first call with a key, as a curl command for this dashboard's own address. */
export function firstCallCommand(key: string): string {
  return (
    `curl -s ${window.location.origin}/api/v1/verify -H "Authorization: Bearer ${key}" ` +
    `-H 'Content-Type: application/json' -d '{"email":"jane@example.com"}'`
  );
}
