import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from './binary-on-path.ts';
import { ExtractionError, formatLabel } from './extraction-error.ts';

/** Where `ffmpeg` is on the PATH, or null: a file lookup, so it can answer synchronously. */
export function findFfmpeg(path = process.env.PATH ?? ''): string | null {
  return findOnPath('ffmpeg', path);
}

/** Whether the binary runs: `ffmpeg -version` exits 0 within a few seconds. */
export function ffmpegWorks(binary: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['-version'], { stdio: 'ignore', timeout: 5_000 });
    // A check in the background never keeps the process alive.
    child.unref();
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

/** The audio track of a video as 16 kHz mono WAV (what speech recognisers want) in a temp file the caller deletes. */
export async function extractAudioTrack(
  binary: string,
  input: string,
  extension: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<string> {
  const output = join(tmpdir(), `docuvault-audio-${randomUUID()}.wav`);
  const label = formatLabel(extension);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        binary,
        [
          '-nostdin',
          '-hide_banner',
          '-loglevel',
          'error',
          '-y',
          '-i',
          input,
          '-vn',
          '-ac',
          '1',
          '-ar',
          '16000',
          '-f',
          'wav',
          output,
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 4000) stderr += chunk.toString('utf8');
      });
      const stop = (error: ExtractionError) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        child.kill('SIGKILL');
        reject(error);
      };
      const timer = setTimeout(
        () =>
          stop(
            new ExtractionError(
              'timeout',
              `extracting the audio of the ${label} file took longer than ${Math.round(options.timeoutMs / 1000)} s`,
            ),
          ),
        options.timeoutMs,
      );
      const onAbort = () =>
        stop(new ExtractionError('aborted', `extracting the audio of the ${label} file was aborted`));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) =>
        stop(new ExtractionError('crashed', `ffmpeg could not be started: ${error.message}`, { cause: error })),
      );
      // 'close', not 'exit': ffmpeg's last stderr lines (which say why it failed) can arrive after it exited.
      child.on('close', (code) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (code === 0) return resolve();
        const reason = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
        if (/does not contain any stream|matches no streams/i.test(stderr)) {
          return reject(new ExtractionError('unsupported', `the ${label} file has no audio track`));
        }
        reject(
          new ExtractionError(
            'corrupt',
            `the ${label} file is corrupt or truncated: ffmpeg failed${reason ? `: ${reason}` : ''}`,
          ),
        );
      });
    });
    return output;
  } catch (error) {
    await rm(output, { force: true });
    throw error;
  }
}
