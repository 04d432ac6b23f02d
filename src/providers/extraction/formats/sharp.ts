import sharp from 'sharp';

// sharp as every reader of a thread uses it. libvips's own thread pool and operation cache would
// keep memory per thread for no gain when one image is read at a time: one worker thread, no cache.
sharp.concurrency(1);
sharp.cache(false);

export { sharp };
