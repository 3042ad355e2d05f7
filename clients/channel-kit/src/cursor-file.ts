import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CursorStore } from './listen.ts';

/**
 * `listen`'s position in a JSON file, one entry per interface address and key: a run resumes
 * where the last one with the same key stopped. The key itself is never written, only the first
 * 16 hex digits of its SHA-256, enough to tell a developer's keys apart.
 */
export class FileCursorStore implements CursorStore {
  readonly file: string;
  readonly entry: string;

  constructor(file: string, baseUrl: string, key: string) {
    this.file = path.resolve(file);
    const fingerprint = createHash('sha256').update(key).digest('hex').slice(0, 16);
    this.entry = `${baseUrl.replace(/\/+$/, '')} key:${fingerprint}`;
  }

  async load(): Promise<string | undefined> {
    const entries = await this.read();
    const saved = entries[this.entry];
    return typeof saved?.cursor === 'string' ? saved.cursor : undefined;
  }

  async save(cursor: string): Promise<void> {
    const entries = await this.read();
    entries[this.entry] = { cursor, saved_at: new Date().toISOString() };
    await mkdir(path.dirname(this.file), { recursive: true });
    // Written whole and renamed over: a run stopped mid-write leaves the previous position.
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(entries, null, 2) + '\n', { mode: 0o600 });
    await rename(temporary, this.file);
  }

  private async read(): Promise<Record<string, { cursor?: unknown; saved_at?: unknown }>> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, { cursor?: unknown }>)
        : {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }
}
