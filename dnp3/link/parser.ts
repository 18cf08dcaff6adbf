// Stream parser: TCP delivers octets, not frames. Hunt for 05 64, check the header, wait for the body, check
// every block CRC; on any failure drop one octet and hunt again (opendnp3's LinkLayerParser). The buffer is
// bounded by one maximum frame, so a hostile peer cannot grow memory, and every loop step consumes or waits.
import { Dnp3Error } from '../errors.js';
import { HEADER_SIZE, MAX_FRAME_SIZE, START_1, START_2, checkHeader, parseFrame } from './frame.js';
import type { LinkFrame } from './frame.js';

export interface LinkParserStats {
  frames: number;
  /** Octets skipped while hunting for a start sequence. */
  junkOctets: number;
  headerCrc: number;
  bodyCrc: number;
  badLength: number;
  badFunction: number;
  badFcv: number;
  unexpectedData: number;
}

export function emptyParserStats(): LinkParserStats {
  return { frames: 0, junkOctets: 0, headerCrc: 0, bodyCrc: 0, badLength: 0, badFunction: 0, badFcv: 0, unexpectedData: 0 };
}

export class LinkParser {
  readonly stats: LinkParserStats = emptyParserStats();
  private buf = new Uint8Array(MAX_FRAME_SIZE * 2);
  private len = 0;

  /** Feeds octets; returns every complete, valid frame they finish. */
  push(chunk: Uint8Array): LinkFrame[] {
    const frames: LinkFrame[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      const room = this.buf.length - this.len;
      const take = Math.min(room, chunk.length - offset);
      this.buf.set(chunk.subarray(offset, offset + take), this.len);
      this.len += take;
      offset += take;
      this.drain(frames);
    }
    return frames;
  }

  private drop(n: number): void {
    this.buf.copyWithin(0, n, this.len);
    this.len -= n;
  }

  private drain(frames: LinkFrame[]): void {
    for (;;) {
      // Hunt: keep a lone trailing 0x05, it may be the first half of a start sequence.
      let s = 0;
      while (s < this.len && !(this.buf[s] === START_1 && (s + 1 === this.len || this.buf[s + 1] === START_2))) s++;
      if (s > 0) { this.stats.junkOctets += s; this.drop(s); }
      if (this.len < HEADER_SIZE) return;
      let size: number;
      try {
        size = checkHeader(this.buf.subarray(0, HEADER_SIZE));
      } catch (err) {
        this.count(err);
        this.drop(1);
        continue;
      }
      if (this.len < size) return;
      try {
        frames.push(parseFrame(this.buf.slice(0, size)));
        this.stats.frames++;
        this.drop(size);
      } catch (err) {
        this.count(err);
        this.drop(1);
      }
    }
  }

  private count(err: unknown): void {
    if (!(err instanceof Dnp3Error)) throw err;
    switch (err.code) {
      case 'LINK_HEADER_CRC': this.stats.headerCrc++; break;
      case 'LINK_BODY_CRC': this.stats.bodyCrc++; break;
      case 'LINK_BAD_FUNCTION': this.stats.badFunction++; break;
      case 'LINK_BAD_FCV': this.stats.badFcv++; break;
      case 'LINK_UNEXPECTED_DATA': this.stats.unexpectedData++; break;
      default: this.stats.badLength++;
    }
  }
}
