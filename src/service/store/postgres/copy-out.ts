// Columns read as raw bytes: `COPY (SELECT cols ...) TO STDOUT (FORMAT binary)` through node-postgres's
// submittable interface (what pg-copy-streams uses). A query's result arrives as text: node-postgres decodes every field
// of a DataRow as UTF-8, so a bytea comes hex-encoded (twice its bytes, encoded by the server and decoded here), and its
// `binary` result mode cannot carry bytes at all (the field is still decoded as UTF-8, which replaces invalid sequences,
// then re-encoded). CopyData messages are handed over as bytes, and the server sends a bytea's in binary COPY as they
// are stored: test/bench/README.md, "PostgreSQL: the first retrieve at 100,000 …" (a vector snapshot's chunks: ~4× less
// CPU on each side than hex).
import type { Connection, Submittable } from "pg";

/** Binary COPY's header: the signature, a flags word and the header extension's length (then that many bytes). */
const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/**
 * Runs `sql` (a `COPY (SELECT ...) TO STDOUT (FORMAT binary)` of `columns` columns) on a client and calls `onRow` with
 * each row's values in their binary send format (a bytea's bytes as they are; an int4 as 4 bytes, big-endian), copied,
 * null for SQL NULL, in order; `callback` once, when the statement ends or fails.
 */
export class CopyOutBytes implements Submittable {
  private started = false;
  private failure: Error | null = null;
  private done = false;
  callback?: (err: Error | null) => void;

  constructor(
    private readonly sql: string,
    private readonly columns: number,
    private readonly onRow: (values: (Uint8Array | null)[]) => void,
  ) {}

  submit(connection: Connection): void {
    connection.query(this.sql);
  }

  /** One CopyData message: the server sends one per row (the first also carries the header, the last the trailer). */
  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure) return;
    try {
      this.read(message.chunk);
    } catch (err) {
      this.failure = err as Error;
    }
  }

  private read(bytes: Buffer): void {
    let at = 0;
    if (!this.started) {
      if (bytes.length < SIGNATURE.length + 8 || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) {
        throw new Error("not a binary COPY stream");
      }
      at = SIGNATURE.length + 8 + bytes.readUInt32BE(SIGNATURE.length + 4);
      this.started = true;
    }
    while (at < bytes.length) {
      const fields = bytes.readInt16BE(at);
      at += 2;
      if (fields === -1) return; // the trailer
      if (fields !== this.columns) throw new Error(`a binary COPY row of ${fields} columns, not ${this.columns}`);
      const values: (Uint8Array | null)[] = [];
      for (let f = 0; f < fields; f++) {
        const length = bytes.readInt32BE(at);
        at += 4;
        if (length === -1) {
          values.push(null);
          continue;
        }
        if (at + length > bytes.length) throw new Error("a binary COPY row cut short");
        // The message is a view of the driver's receive buffer, reused for the next ones: copied (to offset 0 of a
        // buffer of its own, so 8-byte aligned for Float64Array views).
        const value = new Uint8Array(length);
        value.set(bytes.subarray(at, at + length));
        at += length;
        values.push(value);
      }
      this.onRow(values);
    }
  }

  handleError(err: Error): void {
    this.finish(err);
  }

  handleReadyForQuery(): void {
    this.finish(this.failure);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {
    this.failure ??= new Error("rows came as DataRow, not COPY data");
  }
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: Connection & { sendCopyFail?(message: string): void }): void {
    connection.sendCopyFail?.("a COPY FROM was not asked for");
  }

  private finish(err: Error | null): void {
    if (this.done) return;
    this.done = true;
    this.callback?.(err);
  }
}
