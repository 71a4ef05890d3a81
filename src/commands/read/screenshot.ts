import { Type } from '@sinclair/typebox';
import type { RgbaImage, WorldSnapshot } from '../../shared/game-module.ts';
import { defineCommand } from '../define.ts';

export const MAX_SCREENSHOT_DIMENSION = 8192;

export const ScreenshotArgs = Type.Object(
  {
    max_dimension: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SCREENSHOT_DIMENSION,
        default: 1280,
        description: 'longest side in pixels (scaled down to fit, never up); 0 = full size, one pixel a tile',
      }),
    ),
    format: Type.Optional(Type.Union([Type.Literal('jpg'), Type.Literal('png')], { default: 'jpg', description: 'image format' })),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 80, description: 'JPEG quality (ignored for png)' })),
  },
  { additionalProperties: false },
);

export default defineCommand({
  name: 'screenshot',
  category: 'read',
  description:
    'A picture of the whole map as the game draws it, as base64 JPEG or PNG. The world is copied in one frame; ' +
    'drawing and encoding happen on a pool thread.',
  args: ScreenshotArgs,
  result: Type.Object({
    format: Type.Union([Type.Literal('jpg'), Type.Literal('png')]),
    width: Type.Integer(),
    height: Type.Integer(),
    source_width: Type.Integer(),
    source_height: Type.Integer(),
    bytes: Type.Integer({ description: 'length of the decoded image file' }),
    base64: Type.String(),
  }),
  // decisions §4: screenshot needs read_all (it shows every kingdom).
  permission: { all: ['read_all'] },
  binds: ['snapshotWorld', 'renderSnapshot'],
  runsOnGameThread: true,
  frame: ({ game }) => game.snapshotWorld(),
  pool: async ({ args, game: loadGame }, snapshot: WorldSnapshot) => {
    const format = args.format ?? 'jpg';
    const game = await loadGame();
    const image = game.renderSnapshot(snapshot, args.max_dimension ?? 1280);
    const file = format === 'png' ? await encodePng(image) : await encodeJpeg(image, args.quality ?? 80);
    return {
      format,
      width: image.width,
      height: image.height,
      source_width: snapshot.width,
      source_height: snapshot.height,
      bytes: file.length,
      base64: file.toString('base64'),
    };
  },
});

// The encoders are imported here, on the pool thread only: the game thread never loads them.
async function encodePng(image: RgbaImage): Promise<Buffer> {
  const { PNG } = await import('pngjs');
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.rgba.buffer, image.rgba.byteOffset, image.rgba.byteLength);
  return PNG.sync.write(png);
}

async function encodeJpeg(image: RgbaImage, quality: number): Promise<Buffer> {
  const { encode } = await import('jpeg-js');
  return encode({ data: image.rgba, width: image.width, height: image.height }, quality).data;
}
