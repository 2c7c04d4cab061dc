import type { FieldsOf } from '../kinds/request.ts';

export const grayscaleField = { type: 'boolean', default: false, description: 'Render the page in shades of grey.', 'x-rule': 'a boolean' } as const;

declare module '../kinds/request.ts' {
  interface RequestExtensions extends FieldsOf<{ grayscale: typeof grayscaleField }> {}
}
