/** The styles of the Mantine components only the manager's pages use (the rest: app/mantine-styles.ts). */
import '@mantine/core/styles/Drawer.css';
import '@mantine/core/styles/NumberInput.css';
import '@mantine/core/styles/Pagination.css';
