/**
 * `kubectl dsr set image advds/NAME CONTAINER=IMAGE…`: kubectl's set image
 * (staging/src/k8s.io/kubectl/pkg/cmd/set/set_image.go) for the own kind,
 * which kubectl's own verb refuses. `*` names every container; init
 * containers count. One JSON patch that first tests each container's name
 * at its index, so a template changed meanwhile fails instead of getting
 * the image in the wrong container; nothing is sent when no image changes.
 */
import type { AdvancedDaemonSets } from '../../ports/index.js';
import { sendWrite } from './dry-run.js';
import type { PluginCommand } from './parse-plugin-args.js';

type SetImage = Extract<PluginCommand, { verb: 'image' }>;

/** Returns the JSON patch of the updates; throws naming a missing container. */
const imagePatch = (
  spec: {
    containers?: { name: string; image?: string }[];
    initContainers?: { name: string; image?: string }[];
  },
  images: SetImage['images']
): object[] => {
  const ops: object[] = [];
  for (const { container, image } of images) {
    let found = false;
    for (const list of ['initContainers', 'containers'] as const) {
      (spec[list] ?? []).forEach((c, i) => {
        if (container !== '*' && c.name !== container) return;
        found = true;
        if (c.image === image) return;
        const at = `/spec/template/spec/${list}/${i}`;
        ops.push(
          { op: 'test', path: `${at}/name`, value: c.name },
          { op: 'replace', path: `${at}/image`, value: image }
        );
      });
    }
    if (!found) {
      throw new Error(`unable to find container named "${container}"`);
    }
  }
  return ops;
};

/** Runs set image; returns what to print (nothing when no image changes). */
export const setImage = async (
  c: SetImage,
  api: AdvancedDaemonSets,
  ns: string
): Promise<string> => {
  const ds = await api.get(ns, c.name);
  const ops = imagePatch(ds.spec?.template.spec ?? {}, c.images);
  if (ops.length === 0) return '';
  return sendWrite(c, 'image updated', ops, (o) =>
    api.jsonPatch(ns, c.name, ops, o)
  );
};
