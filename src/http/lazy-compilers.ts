/**
 * Request validators and response serializers compiled on first use instead of at start-up.
 * Fastify compiles one Ajv validator per route part and one fast-json-stringify function per route
 * and status at `ready`: for this API that was most of the start-up time after loading modules,
 * and memory held for routes most processes never serve. Each is compiled the first time it is
 * needed, then reused. The compilers themselves are made on first use too: making Ajv's validates
 * every shared schema against the JSON Schema meta-schema, which it compiles first (about a tenth
 * of a start). `compileAll` compiles every one now, so a test proves that every schema compiles
 * without calling each route.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type Compiled = (data: unknown) => unknown;

/** Fastify's default compiler factories, made lazy (pass them as `schemaController.compilersFactory`). */
export interface LazyCompilers {
  buildValidator: ValidatorFactory;
  buildSerializer: SerializerFactory;
  /**
   * Compiles every validator and serializer not compiled yet and says how many it compiled; throws
   * the first error, naming its route.
   */
  compileAll(): number;
}

/** Lazy versions of Fastify's default Ajv and fast-json-stringify compilers. */
export function lazyCompilers(): LazyCompilers {
  const pending = new Set<() => Compiled>();

  /** A function that compiles on its first call; `name` says which route part it serves. */
  function deferred<F extends Compiled>(compile: () => F, name: () => string): () => F {
    let compiled: F | undefined;
    const compileNow = (): F => {
      if (compiled !== undefined) return compiled;
      try {
        compiled = compile();
      } catch (error) {
        throw new Error(`${name()}: ${(error as Error).message}`);
      }
      pending.delete(compileNow);
      return compiled;
    };
    pending.add(compileNow);
    return compileNow;
  }

  const eagerValidators = AjvCompiler();
  const buildValidator = ((...[externalSchemas, options]: Parameters<ValidatorFactory>) => {
    let compiler: ReturnType<ValidatorFactory> | undefined;
    const compile = (route: never) => {
      compiler ??= eagerValidators(externalSchemas, options);
      return compiler(route);
    };
    return (route: { method: string; url: string; httpPart: string }) => {
      const compiled = deferred(
        () => compile(route as never) as unknown as Compiled & { errors?: unknown },
        () => `${route.method} ${route.url} (${route.httpPart})`,
      );
      // Fastify reads `errors` from the function it called, after the call.
      const validate = (data: unknown) => {
        const validator = compiled();
        const valid = validator(data);
        validate.errors = validator.errors;
        return valid;
      };
      validate.errors = undefined as unknown;
      return validate as never;
    };
    // Its typings describe Ajv's own compile(schema); Fastify calls it with the route definition.
  }) as unknown as ValidatorFactory;

  const eagerSerializers = SerializerSelector();
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    let compiler: ReturnType<SerializerFactory> | undefined;
    const compile: ReturnType<SerializerFactory> = (route) => {
      compiler ??= eagerSerializers(externalSchemas, options);
      return compiler(route);
    };
    return (route) => {
      const compiled = deferred(
        () => compile(route),
        () => `${route.method} ${route.url} (${route.httpStatus})`,
      );
      return (doc: unknown) => compiled()(doc);
    };
  };

  return {
    buildValidator,
    buildSerializer,
    compileAll: () => {
      const waiting = [...pending];
      for (const compileNow of waiting) compileNow();
      return waiting.length;
    },
  };
}
