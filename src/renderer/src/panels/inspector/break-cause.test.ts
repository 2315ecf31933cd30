import { describe, expect, it } from 'vitest';
import { BREAK_CAUSES } from '../../../../shared/timeline/types';
import { breakCauseDetail, breakCauseLabel } from './break-cause';

describe('break causes', () => {
  it('names and explains every cause the merger reports', () => {
    expect(breakCauseLabel('token_drift')).toBe('token drift');
    expect(breakCauseLabel('rewritten_history')).toBe('rewritten history');
    expect(breakCauseLabel('different_agent')).toBe('another agent');
    expect(breakCauseLabel('different_tools')).toBe('different tools');
    for (const cause of BREAK_CAUSES) expect(breakCauseDetail(cause)).toMatch(/\w+ \w+ \w+ \w+/);
  });
});
