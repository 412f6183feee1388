// Memory ids are drawn at random, not from one sequence across workspaces: with a sequence, the gap between two of a
// workspace's own ids tells it how much every other workspace wrote meanwhile (on a hosted deployment, other
// customers' activity). They stay positive integers, safe in JSON and JavaScript, unique, assigned by the store.
import { randomInt } from "node:crypto";

/** New ids lie above every id a sequence ever gave (stores written before keep theirs), within 2^48 of it. */
const FIRST_RANDOM_ID = 2 ** 32;
const RANDOM_ID_SPAN = 2 ** 48 - 1; // crypto.randomInt's widest range

/**
 * A new memory id; the store draws another on the rare collision with an id it holds or once held (a forgotten
 * memory's id, kept in its tombstone, is never given to another memory: a client holding it must not reach new text).
 */
export function newMemoryId(): number {
  return FIRST_RANDOM_ID + randomInt(RANDOM_ID_SPAN);
}

/** Attempts before an insert gives up: a collision is about one in 10^7 even with millions of memories. */
export const MEMORY_ID_ATTEMPTS = 5;
