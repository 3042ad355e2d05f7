import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { writeTransaction } from '../../db/sql.ts';

/** A repository function of db/: the unit of work first, then its own arguments. */
type Operation = (em: EntityManager, ...args: never[]) => unknown;

/** The same functions with their unit of work already given: what a service calls through its port. */
export type Bound<Ops extends Record<string, Operation>> = {
  [K in keyof Ops]: Ops[K] extends (em: EntityManager, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** A port: its operations, each on a unit of work of its own, and a transaction whose operations share one. */
export type Store<Ops> = Ops & {
  /** Runs `work` in one transaction; a throw rolls back everything it wrote. */
  transaction<T>(work: (tx: Ops) => Promise<T>): Promise<T>;
};

function bound<Ops extends Record<string, Operation>>(ops: Ops, em: () => EntityManager): Bound<Ops> {
  return Object.fromEntries(
    Object.entries(ops).map(([name, op]) => [name, (...args: never[]) => op(em(), ...args)]),
  ) as Bound<Ops>;
}

/**
 * The default implementation of a port: the db/ functions themselves, each call outside a
 * transaction on an EntityManager forked for it, inside one on the transaction's.
 * `run` is how the transaction is run: `writeTransaction` (again after a deadlock) unless given.
 */
export function storeOf<Ops extends Record<string, Operation>>(
  orm: MikroORM,
  ops: Ops,
  run: <T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>) => Promise<T> = writeTransaction,
): Store<Bound<Ops>> {
  const transaction = <T>(work: (tx: Bound<Ops>) => Promise<T>): Promise<T> =>
    run(orm.em, (tx) => work(bound(ops, () => tx)));
  return Object.assign(
    bound(ops, () => orm.em.fork()),
    { transaction },
  );
}
