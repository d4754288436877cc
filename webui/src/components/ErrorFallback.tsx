/** The 'Oops! Algo salió mal' panel with retry and back-to-start actions. */
import { Button, Center, Group, Stack, Text, Title } from '@mantine/core';

export function ErrorFallback({ onRetry, startPath }: { onRetry: () => void; startPath: string }) {
  return (
    <Center py="xl" role="alert">
      <Stack align="center" gap="md" maw={480}>
        <Title order={2}>Oops! Algo salió mal</Title>
        <Text c="dimmed" ta="center">
          Ocurrió un error inesperado al mostrar esta página.
        </Text>
        <Group>
          <Button onClick={onRetry}>Reintentar</Button>
          <Button variant="default" component="a" href={startPath}>
            Volver al inicio
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}
