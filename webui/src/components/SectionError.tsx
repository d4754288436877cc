/** The full error panel that replaces a dashboard section whose data failed to load. */
import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

export function SectionError({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <Alert color="red" icon={<IconAlertTriangle />} title="Error al cargar la sección" role="alert">
      <Stack gap="sm" align="flex-start">
        <Text size="sm">{message}</Text>
        {onRetry && (
          <Button variant="light" color="red" onClick={onRetry}>
            Reintentar
          </Button>
        )}
      </Stack>
    </Alert>
  );
}
