/** The 'Operación en curso' mark of a room whose change is being applied on the servers. */
import { Badge } from '@mantine/core';

export function ProcessingBadge() {
  return (
    <Badge size="sm" color="yellow" variant="light">
      Operación en curso
    </Badge>
  );
}
