import qrcode from 'qrcode-generator';
import { useMemo } from 'react';

/**
 * `text` as a QR code, drawn as one SVG path (crisp at any size, nothing injected as HTML). The text
 * is encoded as UTF-8 bytes (the library's default byte mode would truncate non-ASCII characters);
 * error correction M, the usual choice for a screen-to-camera scan of a few hundred bytes.
 */
export function QrCode({ text, label, className = '' }: { text: string; label: string; className?: string }) {
  const { size, path } = useMemo(() => {
    const qr = qrcode(0, 'M');
    const bytes = new TextEncoder().encode(text);
    qr.addData(String.fromCharCode(...bytes), 'Byte');
    qr.make();
    const count = qr.getModuleCount();
    let d = '';
    for (let row = 0; row < count; row++) {
      for (let col = 0; col < count; col++) {
        if (qr.isDark(row, col)) d += `M${col + 4} ${row + 4}h1v1h-1z`;
      }
    }
    // Four modules of quiet zone on every side, as the standard asks.
    return { size: count + 8, path: d };
  }, [text]);

  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      shapeRendering="crispEdges"
      className={className}
      data-modules={size - 8}
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
