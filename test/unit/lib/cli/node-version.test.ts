import { describe, expect, it } from 'vitest';
import {
  nodeVersionProblem,
  REQUIRED_NODE,
} from '../../../../lib/cli/node-version.js';

describe('nodeVersionProblem', () => {
  it.each([
    { running: '20.20.2', old: true },
    { running: 'v22.18.9', old: true },
    { running: '22.19.0', old: false },
    { running: '22.23.3', old: false },
    { running: '24.0.0', old: false },
  ])('judges Node.js $running old: $old', ({ running, old }) => {
    // Act
    const problem = nodeVersionProblem(running);

    // Assess
    expect(problem).toBe(
      old
        ? `dsr needs Node.js ${REQUIRED_NODE} or newer; this is Node.js ${running.replace(/^v/, '')}`
        : undefined
    );
  });
});
