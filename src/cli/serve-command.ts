/**
 * `mailvet serve`: the HTTP API and dashboard. The server lands with the API issue; until then
 * this says so plainly instead of pretending to listen.
 */
export function runServe(): void {
  process.stderr.write(
    [
      'mailvet serve: the HTTP API (POST /api/v1/verify) is not built yet in this version.',
      'The verification engine works from the command line today:',
      '  mailvet verify jane@example.com',
      '  mailvet verify --file in.csv --out out.csv',
      '',
    ].join('\n'),
  );
  process.exitCode = 1;
}
