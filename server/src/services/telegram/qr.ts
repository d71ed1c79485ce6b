import { crc32, deflateSync } from 'node:zlib';
import qrcode from 'qrcode-generator';

/**
 * A QR code as a PNG (Telegram's sendPhoto takes JPEG/PNG): the same generator as the dashboard's
 * QR (qrcode-generator, error correction M), drawn black on white with a 4-module quiet zone, as an
 * 8-bit grayscale PNG written by hand (zlib only).
 */
export function qrPng(text: string, scale = 8): Buffer {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const modules = qr.getModuleCount();
  const quiet = 4;
  const size = (modules + quiet * 2) * scale;
  // One filter byte (0: none) then one byte per pixel, per row.
  const raw = Buffer.alloc((size + 1) * size, 0xff);
  for (let y = 0; y < size; y++) {
    raw[y * (size + 1)] = 0;
    const row = Math.floor(y / scale) - quiet;
    if (row < 0 || row >= modules) continue;
    for (let x = 0; x < size; x++) {
      const col = Math.floor(x / scale) - quiet;
      if (col >= 0 && col < modules && qr.isDark(row, col)) raw[y * (size + 1) + 1 + x] = 0;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}
