// Queries built and compiled once, executed many times with new values. Building a Kysely query
// (parsing references, freezing and visiting its operation tree, compiling the SQL text) costs more
// than a small indexed query itself; a hot read path builds each of its query shapes once with Params
// where the values go, and gives the values at every execution.
import { createQueryId } from 'kysely';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { memoized } from '../lib/memo.js';

/**
 * Where a value goes in a query compiled once: pass it where the builder takes a value (cast to the
 * value's type). Kysely binds it as a parameter like any value; execute() puts the real value there.
 */
export class Param {
  constructor(readonly name: string) {}
}

/** A Param typed as the value it stands for, for the builder's signatures. */
export const param = <T>(name: string): T => new Param(name) as unknown as T;

/** A query compiled once, to execute with the values of its Params. */
export class CompiledOnce<Row> {
  private readonly compiled: CompiledQuery<Row>;

  constructor(query: Compilable<Row>) {
    this.compiled = query.compile();
  }

  /** Runs the query; `values` answers the value of each Param by name. */
  async execute(db: Kysely<never>, values: (name: string) => unknown): Promise<Row[]> {
    const parameters = this.compiled.parameters.map((value) =>
      value instanceof Param ? values(value.name) : value,
    );
    const result = await db.executeQuery<Row>({ ...this.compiled, queryId: createQueryId(), parameters });
    return result.rows;
  }
}

/**
 * Compiled queries by shape (what decides their SQL text), made on first use. Bounded: shapes that
 * depend on list lengths are many in theory, few in practice.
 */
export class CompiledQueries<Row> {
  private readonly byShape = new Map<string, CompiledOnce<Row>>();

  constructor(private readonly max = 200) {}

  get(shape: string, build: () => Compilable<Row>): CompiledOnce<Row> {
    return memoized(this.byShape, shape, this.max, () => new CompiledOnce(build()));
  }
}
