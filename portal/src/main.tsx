import { render } from 'preact';
import { App } from './app';
import { restoreSession } from './api/session';
import './styles.css';

restoreSession();
render(<App />, document.getElementById('app')!);
