/**
 * Fastify gives every request a child logger carrying its id. Pino builds a child's bindings through
 * the redaction every line gets (about forty paths, wildcards among them), which cost a cached
 * verification a tenth of its time, and most requests never write a line of their own: their one
 * request line is written by the request-log plugin, which names the id itself. So a request's
 * logger is a stand-in that makes the real child the first time a line is written through it.
 */
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Factory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

const LEVELS: readonly Level[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
const BINDINGS = Symbol('bindings');
const CHILD = Symbol('child');

interface Deferred {
  [BINDINGS]: Record<string, unknown>;
  [CHILD]?: FastifyBaseLogger;
}

/** The stand-ins' prototype for one parent: its properties, and methods that make the child first. */
function deferredPrototype(parent: FastifyBaseLogger): object {
  const child = (self: Deferred & FastifyBaseLogger) => {
    self[CHILD] ??= parent.child(self[BINDINGS]);
    return self[CHILD];
  };
  const methods: Record<string, unknown> = {
    child(this: Deferred & FastifyBaseLogger, bindings: Record<string, unknown>, options?: object) {
      return child(this).child(bindings, options);
    },
    bindings(this: Deferred & FastifyBaseLogger) {
      return (child(this) as unknown as { bindings(): object }).bindings();
    },
  };
  for (const level of LEVELS) {
    methods[level] = function (this: Deferred & FastifyBaseLogger, ...args: unknown[]) {
      // A level the logger does not write costs nothing, as it does with pino's own no-op.
      if (!(parent as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level)) return;
      (child(this)[level] as (...args: unknown[]) => void)(...args);
    };
  }
  return Object.assign(Object.create(parent), methods);
}

/** Fastify's `childLoggerFactory`: requests' loggers made on first use. */
export function deferredChildLoggers(): Factory {
  const prototypes = new WeakMap<FastifyBaseLogger, object>();
  return function childLoggerFactory(logger, bindings, options) {
    // A route's own level or serializers: the real child at once (rare: the orchestrators' probes).
    if (options.level !== undefined || options.serializers !== undefined)
      return logger.child(bindings, options);
    let prototype = prototypes.get(logger);
    if (prototype === undefined) {
      prototype = deferredPrototype(logger);
      prototypes.set(logger, prototype);
    }
    const deferred = Object.create(prototype) as Deferred;
    deferred[BINDINGS] = bindings;
    return deferred as unknown as FastifyBaseLogger;
  };
}
