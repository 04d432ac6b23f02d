import { parseFile } from 'music-metadata';
import { ExtractionError, formatLabel } from '../extraction-error.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata, isoDate } from './context.ts';

const VIDEO = new Set(['mp4', 'mov']);

/**
 * Audio (MP3, WAV, M4A) and video (MP4, MOV): what the container says (duration, codec, tags),
 * no text; `media` tells the caller that the text comes from transcription.
 */
export const readMedia: FormatReader = async ({ path, extension }) => {
  const { format, common, quality } = await parseFile(path, { duration: true, skipCovers: true });
  const label = formatLabel(extension);
  if (!format.container || !format.duration) throw new Error('no audio or video stream was found');
  // A stream that promises more than the file holds was cut short: transcribing it would miss the end.
  // (music-metadata 11 also says "Data chunk size exceeds file size" of every whole WAV: not a sign.)
  const cut = quality.warnings.find(
    (w) =>
      w.message !== 'Data chunk size exceeds file size' &&
      /exceed|truncat|premature|end of (file|stream)/i.test(w.message),
  );
  if (cut) throw new Error(cut.message);
  if (format.hasAudio === false && !VIDEO.has(extension))
    throw new ExtractionError('corrupt', `the ${label} file holds no audio`);
  const video = format.trackInfo.find((t) => t.video)?.video;
  return {
    text: '',
    pages: null,
    metadata: compactMetadata({
      duration_seconds: format.duration === undefined ? undefined : Math.round(format.duration * 100) / 100,
      container: format.container,
      codec: format.codec,
      sample_rate: format.sampleRate,
      channels: format.numberOfChannels,
      bitrate: format.bitrate === undefined ? undefined : Math.round(format.bitrate),
      width: video?.displayWidth ?? video?.pixelWidth,
      height: video?.displayHeight ?? video?.pixelHeight,
      has_audio: format.hasAudio,
      title: common.title,
      artist: common.artist,
      album: common.album,
      year: common.year,
      created: isoDate(format.creationTime),
    }),
    media: { kind: VIDEO.has(extension) ? 'video' : 'audio' },
  };
};
