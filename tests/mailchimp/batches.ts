/**
 * Batch operations: `POST /batches` queues operations `{method, path, params?, body (a JSON string),
 * operation_id?}` and answers `status: "pending"`; they run in the background against the emulator
 * itself (outside the 10-connection limit), the status going pending → started → finished. Finished
 * results are a gzipped tar archive of JSON files, each an array of `{status_code, operation_id,
 * response}` with `response` the operation's body as a string, served unauthenticated at
 * `response_body_url` (Mailchimp hands out a pre-signed storage URL).
 */
import {
  type ApiRequest,
  type ApiResult,
  collection,
  isObject,
  NO_CONTENT,
  objectBody,
  ok,
  type Route,
} from './api.ts';
import { type FieldProblem, invalid, McProblem, notFound } from './problems.ts';
import {
  type Account,
  type Batch,
  type BatchOperation,
  type BatchResult,
  hex,
  mcTime,
  type World,
} from './state.ts';
import { gzippedTar } from './tar.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Operations run per step; `World.batchStepMs` apart. */
const CHUNK = 50;
const RESULTS_PER_FILE = 500;

/** Runs one request in-process for `account` (no auth, limits or faults: the batch is already inside). */
export type OperationRunner = (account: Account, request: ApiRequest) => Promise<ApiResult>;

export interface BatchEngine {
  routes: Route[];
  /** The archive of a finished batch, for `GET /batch-results/{id}.tar.gz`. */
  archive(id: string): Buffer | undefined;
  stop(): void;
}

export function batchView(world: World, batch: Batch): Record<string, unknown> {
  return {
    id: batch.id,
    status: batch.status,
    total_operations: batch.operations.length,
    finished_operations: batch.results.length,
    errored_operations: batch.erroredOperations,
    submitted_at: mcTime(batch.submittedAt),
    completed_at: mcTime(batch.completedAt),
    response_body_url: batch.status === 'finished' ? `${world.origin}/batch-results/${batch.id}.tar.gz` : '',
  };
}

function checkOperations(raw: unknown): BatchOperation[] {
  if (!Array.isArray(raw))
    throw invalid([{ field: '', message: 'Required fields were not provided: operations' }]);
  const problems: FieldProblem[] = [];
  raw.forEach((operation, index) => {
    const at = `operations.item:${index}`;
    if (!isObject(operation)) {
      problems.push({
        field: at,
        message: `Schema describes object, ${Array.isArray(operation) ? 'array' : typeof operation} found instead`,
      });
      return;
    }
    if (!METHODS.includes(String(operation.method)))
      problems.push({
        field: `${at}.method`,
        message: `Data presented is not one of the accepted values: ${METHODS.join(', ')}.`,
      });
    if (typeof operation.path !== 'string' || operation.path === '')
      problems.push({ field: `${at}.path`, message: 'Schema describes string' });
    if (operation.body !== undefined && typeof operation.body !== 'string')
      problems.push({
        field: `${at}.body`,
        message: `Schema describes string, ${typeof operation.body} found instead`,
      });
    if (operation.params !== undefined && !isObject(operation.params))
      problems.push({ field: `${at}.params`, message: 'Schema describes object' });
    if (operation.operation_id !== undefined && typeof operation.operation_id !== 'string')
      problems.push({ field: `${at}.operation_id`, message: 'Schema describes string' });
  });
  if (problems.length > 0) throw invalid(problems);
  return raw as BatchOperation[];
}

/** The routes and background processing of batches; `run` executes one operation. */
export function batchEngine(world: World, run: OperationRunner): BatchEngine {
  const timers = new Set<NodeJS.Timeout>();
  const later = (task: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, world.batchStepMs);
    timers.add(timer);
  };

  const runOne = async (account: Account, operation: BatchOperation): Promise<BatchResult> => {
    const id = operation.operation_id ?? null;
    let body: unknown;
    try {
      body = operation.body === undefined || operation.body === '' ? undefined : JSON.parse(operation.body);
    } catch {
      const problem = new McProblem('jsonParse');
      return { status_code: problem.status, operation_id: id, response: JSON.stringify(problem.body()) };
    }
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(operation.params ?? {}))
      query.set(key, Array.isArray(value) ? value.join(',') : String(value));
    const path = `/${operation.path.replace(/^\/+/, '').replace(/^3\.0(\/|$)/, '')}`;
    account.batchOperations++;
    const result = await run(account, { method: operation.method.toUpperCase(), path, query, body });
    return {
      status_code: result.status,
      operation_id: id,
      response: result.body === undefined ? '' : JSON.stringify(result.body),
    };
  };

  const step = (batch: Batch, account: Account) => {
    if (batch.cancelled) return;
    batch.status = 'started';
    void (async () => {
      for (const operation of batch.operations.slice(batch.results.length, batch.results.length + CHUNK)) {
        const result = await runOne(account, operation);
        if (batch.cancelled) return;
        batch.results.push(result);
        if (result.status_code >= 400) batch.erroredOperations++;
      }
      if (batch.results.length < batch.operations.length) later(() => step(batch, account));
      else later(() => finish(batch));
    })();
  };

  const finish = (batch: Batch) => {
    if (batch.cancelled) return;
    const entries: { name: string; content?: Buffer }[] = [{ name: `${batch.id}/` }];
    for (let start = 0; start < batch.results.length; start += RESULTS_PER_FILE) {
      const chunk = batch.results.slice(start, start + RESULTS_PER_FILE);
      entries.push({ name: `${batch.id}/${hex(10)}.json`, content: Buffer.from(JSON.stringify(chunk)) });
    }
    batch.archive = gzippedTar(entries);
    batch.completedAt = new Date();
    batch.status = 'finished';
  };

  const batchParam = (account: Account, id: string | undefined): Batch => {
    const batch = world.batches.get(id ?? '');
    if (!batch || batch.accountId !== account.id) throw notFound();
    return batch;
  };

  const routes: Route[] = [
    {
      method: 'POST',
      pattern: '/batches',
      handler: (ctx, request) => {
        const operations = checkOperations(objectBody(request).operations);
        const batch: Batch = {
          id: hex(10),
          accountId: ctx.account.id,
          status: 'pending',
          operations,
          results: [],
          erroredOperations: 0,
          submittedAt: new Date(),
          cancelled: false,
        };
        world.batches.set(batch.id, batch);
        later(() => step(batch, ctx.account));
        return ok(batchView(world, batch));
      },
    },
    {
      method: 'GET',
      pattern: '/batches',
      handler: (ctx, request) => {
        const batches = [...world.batches.values()].filter((batch) => batch.accountId === ctx.account.id);
        return ok(collection(request.query, 'batches', batches, (batch) => batchView(world, batch)));
      },
    },
    {
      method: 'GET',
      pattern: '/batches/{batch_id}',
      handler: (ctx, _request, params) => ok(batchView(world, batchParam(ctx.account, params.batch_id))),
    },
    {
      method: 'DELETE',
      pattern: '/batches/{batch_id}',
      handler: (ctx, _request, params) => {
        const batch = batchParam(ctx.account, params.batch_id);
        batch.cancelled = true;
        world.batches.delete(batch.id);
        return NO_CONTENT;
      },
    },
  ];

  return {
    routes,
    archive: (id) => world.batches.get(id)?.archive,
    stop: () => {
      for (const batch of world.batches.values()) batch.cancelled = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
