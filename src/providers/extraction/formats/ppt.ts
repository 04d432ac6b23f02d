import { readFile } from 'node:fs/promises';
import { ExtractionError } from '../extraction-error.ts';
import { CompoundFile, summaryInformation } from './cfb.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { printableStrings } from './ole-strings.ts';
import { joinPages, normaliseText, TextBuilder } from './text-utils.ts';

// PowerPoint 97-2003 (.ppt), best effort: the text atoms of the "PowerPoint Document" stream.
// Placeholder text (titles, bullets) is listed per slide in SlideListWithText; text boxes live in
// each Slide's drawing, matched to slides by order (the persist directory is not followed).
// Master slides and handouts are skipped: their text is template prompts.

const T = {
  SLIDE_LIST_WITH_TEXT: 0x0ff0,
  SLIDE_PERSIST_ATOM: 0x03f3,
  TEXT_CHARS: 0x0fa0,
  TEXT_BYTES: 0x0fa8,
  SLIDE: 0x03ee,
  NOTES: 0x03f0,
  MAIN_MASTER: 0x03f8,
  HANDOUT: 0x0fc9,
} as const;

interface Found {
  /** Per slide (SlideListWithText instance 0): placeholder text. */
  listed: string[][];
  /** Per Slide container, in stream order: text-box text. */
  drawn: string[][];
  notes: string[];
}

/** PPT: one page per slide with its text, then notes; readable strings when the records cannot be followed. */
export const readPpt: FormatReader = async ({ path }) => {
  const container = new CompoundFile(await readFile(path));
  if (container.names.includes('EncryptedSummary'))
    throw new ExtractionError('unsupported', 'the PPT file is password-protected');
  const stream = container.stream('PowerPoint Document');
  if (!stream) throw new Error('there is no PowerPoint Document stream');
  const info = summaryInformation(container);
  let slides: string[];
  let notes: string[] = [];
  let bestEffort = false;
  try {
    const found: Found = { listed: [], drawn: [], notes: [] };
    walk(stream, 0, stream.length, found, null, 0);
    slides = mergeSlides(found);
    notes = [...new Set(found.notes.map((n) => n.replace(/\r/g, '\n').trim()).filter(Boolean))];
    if (slides.length === 0 && notes.length === 0) throw new Error('no text records');
  } catch {
    slides = [printableStrings(stream).join('\n')];
    bestEffort = true;
  }
  const out = new TextBuilder();
  const pages: string[] = [];
  for (const slide of slides) {
    const page = normaliseText(slide);
    pages.push(page);
    if (!out.add(`${page}\n\n`)) break;
  }
  const notesText = normaliseText(notes.join('\n'));
  if (notesText) out.add(`Notes: ${notesText}`);
  return {
    text: out.truncated ? normaliseText(out.toString()) : joinPages([...pages, notesText ? `Notes: ${notesText}` : '']),
    pages,
    metadata: compactMetadata({
      author: info.author,
      title: info.title,
      subject: info.subject,
      created: info.created,
      modified: info.modified,
      slides: bestEffort ? undefined : slides.length,
      best_effort: bestEffort || undefined,
      truncated: out.truncated || undefined,
    }),
    media: null,
  };
};

/** Walks records from `start` to `end`; `target` collects text atoms met inside the current slide, list entry or notes. */
function walk(stream: Buffer, start: number, end: number, found: Found, target: string[] | null, depth: number): void {
  if (depth > 32) throw new Error('records nest too deeply');
  let listTarget: string[] | null = null;
  for (let at = start; at + 8 <= end; ) {
    const verInstance = stream.readUInt16LE(at);
    const type = stream.readUInt16LE(at + 2);
    const length = stream.readUInt32LE(at + 4);
    const bodyStart = at + 8;
    const bodyEnd = bodyStart + length;
    if (bodyEnd > end) throw new Error('a record runs past its container');
    const isContainer = (verInstance & 0x0f) === 0x0f;
    const instance = verInstance >> 4;
    if (type === T.TEXT_CHARS || type === T.TEXT_BYTES) {
      const text =
        type === T.TEXT_CHARS
          ? stream.toString('utf16le', bodyStart, bodyEnd)
          : stream.toString('latin1', bodyStart, bodyEnd);
      (listTarget ?? target)?.push(text);
    } else if (type === T.SLIDE_PERSIST_ATOM && target === null) {
      listTarget = [];
      found.listed.push(listTarget);
    } else if (isContainer && type !== T.MAIN_MASTER && type !== T.HANDOUT) {
      if (type === T.SLIDE_LIST_WITH_TEXT) {
        // Instance 0 lists slides; 2 lists notes; 1 master slides.
        if (instance === 0) walk(stream, bodyStart, bodyEnd, found, null, depth + 1);
        else if (instance === 2) walk(stream, bodyStart, bodyEnd, found, found.notes, depth + 1);
      } else if (type === T.SLIDE) {
        const texts: string[] = [];
        found.drawn.push(texts);
        walk(stream, bodyStart, bodyEnd, found, texts, depth + 1);
      } else if (type === T.NOTES) {
        walk(stream, bodyStart, bodyEnd, found, found.notes, depth + 1);
      } else {
        walk(stream, bodyStart, bodyEnd, found, target, depth + 1);
      }
    }
    at = bodyEnd;
  }
}

/** Each listed slide's text with its drawing's text boxes (matched by order), without repeats. */
function mergeSlides(found: Found): string[] {
  const count = Math.max(found.listed.length, found.drawn.length);
  const slides: string[] = [];
  for (let i = 0; i < count; i++) {
    const seen = new Set<string>();
    const texts = [...(found.listed[i] ?? []), ...(found.drawn[i] ?? [])]
      .map((t) => t.replace(/\r/g, '\n').trim())
      .filter((t) => t !== '' && !seen.has(t) && seen.add(t));
    slides.push(texts.join('\n'));
  }
  return slides;
}
