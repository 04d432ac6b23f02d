import fs from 'node:fs/promises';

/**
 * CPU milliseconds of this process and of its children that have been waited for (the native
 * tesseract processes), from /proc/self/stat: on a loaded machine wall time says more about the
 * neighbours than about OCR. Linux only.
 */
export async function cpuMs(): Promise<number> {
  const fields = (await fs.readFile('/proc/self/stat', 'utf8')).split(') ')[1]!.split(' ');
  // utime, stime, cutime, cstime are fields 14-17 of stat(5); the split above starts at field 3.
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}
