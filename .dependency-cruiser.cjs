/**
 * The dependency rules the layout is meant to make visible, checked by `npm run lint`:
 * - no import cycle;
 * - domain folders (accounts, audit, doctor, integrations, jobs, lists, mail-auth, net, observability, sender-checks, usage, verification, webhooks) import neither `adapters/` nor `http/`;
 * - only the composition root (`container/`) imports `adapters/`, and an `adapters/<port>/` folder
 *   never imports another one;
 * - `verification/` imports no I/O library: it is pure and works through its ports.
 * - prom-client is imported by `adapters/metrics/` alone (everything else records through `observability/`).
 *
 * What breaks a rule today is listed in `.dependency-cruiser-known-violations.json` and tolerated
 * (`--ignore-known`): anything new fails the lint. The list only ever shrinks; regenerate it with
 * `npm run lint:deps:baseline` after removing violations, never to admit new ones.
 */
const DOMAIN =
  '^src/(accounts|audit|doctor|integrations|jobs|lists|mail-auth|net|observability|sender-checks|usage|verification|webhooks)/';
const ROOT = '^src/container/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the modules cannot be read (or loaded) one without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-not-to-adapters-or-http',
      severity: 'error',
      comment: 'Domain folders define ports; adapters implement them and http calls them.',
      from: { path: DOMAIN },
      to: { path: '^src/(adapters|http)/' },
    },
    {
      name: 'only-the-root-imports-adapters',
      severity: 'error',
      comment: 'Only the composition root chooses implementations.',
      from: { path: '^src/', pathNot: [ROOT, '^src/adapters/'] },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'one-port-per-adapter-folder',
      severity: 'error',
      comment:
        'An adapters/<port>/ folder implements its port alone: it never reaches into another one, ' +
        'save adapters/redis/, the toolbox every Redis-backed adapter shares (client, fallback, lease semaphore).',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: '^src/adapters/($1|redis)/' },
    },
    {
      name: 'prom-client-only-in-its-adapter',
      severity: 'error',
      comment:
        'Metrics are recorded through observability/ports.ts; prom-client is loaded by adapters/metrics/ alone, and only when metrics are on.',
      from: { path: '^src/', pathNot: '^src/adapters/metrics/' },
      to: { path: '(^|/)node_modules/prom-client/' },
    },
    {
      name: 'verification-is-pure',
      severity: 'error',
      comment: 'The verification engine works through its ports, never with I/O of its own.',
      from: { path: '^src/verification/' },
      to: {
        dependencyTypes: ['core', 'npm'],
        path: '^(node:)?(net|tls|dns|dgram|http|https|fs|child_process)$|^(pg|ioredis|better-sqlite3|bullmq|fastify|kysely|undici)$',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
