/** The information-loading text shown while a section fetches its data. */
import { Center, Loader, Stack, Text } from '@mantine/core';

export function LoadingState({ text = 'Cargando información...' }: { text?: string }) {
  return (
    <Center py="xl">
      <Stack align="center" gap="sm">
        <Loader />
        <Text c="dimmed">{text}</Text>
      </Stack>
    </Center>
  );
}
