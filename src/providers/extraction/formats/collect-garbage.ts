import v8 from 'node:v8';
import vm from 'node:vm';

// A scanned page leaves 40-50 MB of ArrayBuffers behind (the decoded scan, its RGBA copy, the
// greyscale result). V8 collects such external memory only once about 64 MB of it has piled up, so
// between two pages a thread can hold a whole page more than it uses: 60 MB of the peak over a
// 100-page scan (measured: 264 MiB without, 204 MiB with a collection after each page). A full
// collection of this thread's small heap costs milliseconds, against seconds of OCR per page.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Frees this thread's unreachable memory now. */
export function collectGarbage(): void {
  gc();
}
