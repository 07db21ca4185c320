"""Pure statistics: confidence bounds, certification verdicts, planning. No I/O."""
