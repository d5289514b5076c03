package status

import (
	"bytes"
	"context"
	"time"
)

// Watch collects the deployment's tree every interval until ctx is done
// and calls show with the first one and with each that differs from the
// last one shown in more than its ages. It returns nil when ctx ends and
// Collect's error (ErrNotFound when the deployment is gone) otherwise.
func Watch(ctx context.Context, c *Client, namespace, name string, interval time.Duration, show func(t *Tree, first bool)) error {
	var last []byte
	for {
		tree, err := Collect(ctx, c, namespace, name)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// Rendered at its own collection time, ages alone do not change.
		var key bytes.Buffer
		WriteText(&key, tree, tree.Time)
		if !bytes.Equal(key.Bytes(), last) {
			show(tree, last == nil)
			last = key.Bytes()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}
