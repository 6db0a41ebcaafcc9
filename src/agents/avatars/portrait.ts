import { encodeRgba } from '../png.ts';

/**
 * Draws the built-in avatar portraits: flat head-and-shoulders figures made of ellipses and
 * rectangles, rendered with 4x4 supersampling into a PNG. Everything is computed from the
 * description below, so the pictures are the project's own work and identical on every
 * run (same bytes, same ETag).
 */

type Rgb = readonly [number, number, number];

export type HairStyle = 'short' | 'long' | 'bun' | 'curly' | 'bald' | 'scarf';

/** What a portrait looks like. */
export interface PortraitLook {
  background: Rgb;
  skin: Rgb;
  hair: Rgb;
  hairStyle: HairStyle;
  shirt: Rgb;
  glasses?: boolean;
  beard?: boolean;
}

/** Side of the square portrait in pixels. */
export const PORTRAIT_SIZE_PX = 256;
const SAMPLES = 4;

interface Shape {
  inside(x: number, y: number): boolean;
  color: Rgb;
}

const ellipse =
  (cx: number, cy: number, rx: number, ry: number) =>
  (x: number, y: number): boolean =>
    ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;

const rect =
  (x0: number, y0: number, x1: number, y1: number) =>
  (x: number, y: number): boolean =>
    x >= x0 && x <= x1 && y >= y0 && y <= y1;

function shade(color: Rgb, factor: number): Rgb {
  return color.map((c) => Math.max(0, Math.min(255, Math.round(c * factor)))) as unknown as Rgb;
}

/** The shapes of a portrait, back to front, in unit coordinates (y grows downwards). */
function shapes(look: PortraitLook): Shape[] {
  const s: Shape[] = [];
  const add = (inside: Shape['inside'], color: Rgb) => s.push({ inside, color });
  add(() => true, look.background);
  add(ellipse(0.5, 0.46, 0.42, 0.42), shade(look.background, 1.12));
  if (look.hairStyle === 'long') add(rect(0.27, 0.3, 0.73, 0.78), look.hair);
  if (look.hairStyle === 'long') add(ellipse(0.5, 0.36, 0.25, 0.22), look.hair);
  if (look.hairStyle === 'scarf') add(ellipse(0.5, 0.5, 0.3, 0.36), look.hair);
  add(ellipse(0.5, 1.06, 0.4, 0.32), look.shirt);
  add(ellipse(0.5, 0.8, 0.09, 0.05), shade(look.shirt, 0.8));
  add(rect(0.44, 0.58, 0.56, 0.8), shade(look.skin, 0.88));
  add(ellipse(0.5, 0.8, 0.06, 0.035), shade(look.skin, 0.88));
  if (look.hairStyle !== 'scarf') {
    add(ellipse(0.305, 0.45, 0.035, 0.06), shade(look.skin, 0.94));
    add(ellipse(0.695, 0.45, 0.035, 0.06), shade(look.skin, 0.94));
  }
  add(ellipse(0.5, 0.44, 0.2, 0.25), look.skin);
  if (look.beard) {
    const beard = ellipse(0.5, 0.53, 0.2, 0.17);
    add((x, y) => beard(x, y) && y > 0.5, look.hair);
  }
  // Hair on top of the head.
  const top = ellipse(0.5, 0.34, 0.215, 0.17);
  switch (look.hairStyle) {
    case 'short':
    case 'long':
      add((x, y) => top(x, y) && y < 0.33, look.hair);
      add(ellipse(0.39, 0.3, 0.12, 0.07), look.hair);
      break;
    case 'bun':
      add((x, y) => top(x, y) && y < 0.33, look.hair);
      add(ellipse(0.5, 0.15, 0.085, 0.075), look.hair);
      break;
    case 'curly':
      for (let i = 0; i < 9; i++) {
        const angle = Math.PI * (1.05 + (i * 0.9) / 8);
        add(
          ellipse(0.5 + 0.19 * Math.cos(angle), 0.36 + 0.17 * Math.sin(angle), 0.065, 0.065),
          look.hair,
        );
      }
      add((x, y) => top(x, y) && y < 0.32, look.hair);
      break;
    case 'scarf': {
      const face = ellipse(0.5, 0.46, 0.165, 0.2);
      const scarf = ellipse(0.5, 0.42, 0.235, 0.29);
      add((x, y) => scarf(x, y) && !face(x, y), look.hair);
      break;
    }
    case 'bald':
      break;
  }
  const dark: Rgb = [40, 32, 36];
  add(ellipse(0.5, 0.485, 0.022, 0.035), shade(look.skin, 0.86));
  add(ellipse(0.425, 0.435, 0.02, 0.024), dark);
  add(ellipse(0.575, 0.435, 0.02, 0.024), dark);
  const brows = look.hairStyle === 'scarf' ? dark : shade(look.hair, 0.9);
  add(ellipse(0.42, 0.395, 0.04, 0.01), brows);
  add(ellipse(0.58, 0.395, 0.04, 0.01), brows);
  const smileOuter = ellipse(0.5, 0.53, 0.075, 0.05);
  const smileInner = ellipse(0.5, 0.515, 0.075, 0.045);
  add((x, y) => smileOuter(x, y) && !smileInner(x, y) && y > 0.53, [170, 60, 70]);
  if (look.glasses) {
    for (const cx of [0.425, 0.575]) {
      const outer = ellipse(cx, 0.435, 0.06, 0.05);
      const inner = ellipse(cx, 0.435, 0.048, 0.04);
      add((x, y) => outer(x, y) && !inner(x, y), dark);
    }
    add(rect(0.485, 0.428, 0.515, 0.438), dark);
  }
  return s;
}

/** The portrait as a PNG of `PORTRAIT_SIZE_PX` square. */
export function renderPortrait(look: PortraitLook): Buffer {
  const size = PORTRAIT_SIZE_PX;
  const layers = shapes(look).reverse();
  const pixels = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SAMPLES) / size;
          const y = (py + (sy + 0.5) / SAMPLES) / size;
          const color = (layers.find((shape) => shape.inside(x, y)) as Shape).color;
          r += color[0];
          g += color[1];
          b += color[2];
        }
      }
      const n = SAMPLES * SAMPLES;
      const at = (py * size + px) * 4;
      pixels[at] = Math.round(r / n);
      pixels[at + 1] = Math.round(g / n);
      pixels[at + 2] = Math.round(b / n);
      pixels[at + 3] = 255;
    }
  }
  return encodeRgba(size, size, pixels);
}
