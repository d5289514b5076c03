package status

import (
	"bytes"
	"context"
	"time"
)

// Watch collects the deployment's tree, and again each time the channel
// next returns delivers (kbook status --watch: time.After(interval)),
// until ctx is done, and calls show with the first one and with each that
// differs from the last one shown in more than its ages. It returns nil
// when ctx ends and Collect's error (ErrNotFound when the deployment is
// gone) otherwise.
func Watch(ctx context.Context, c *Client, namespace, name string, next func() <-chan time.Time, show func(t *Tree, first bool)) error {
	var last []byte
	// The change key renders every tree at one fixed time: ages then stay
	// put between reads (at each read's own time they grow, and a redraw
	// came whenever one crossed a second), and only the objects' own
	// timestamps, conditions and fields change it.
	ref := time.Now()
	for {
		tree, err := Collect(ctx, c, namespace, name)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		var key bytes.Buffer
		WriteText(&key, tree, ref)
		if !bytes.Equal(key.Bytes(), last) {
			show(tree, last == nil)
			last = key.Bytes()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-next():
		}
	}
}
