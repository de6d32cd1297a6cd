package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/leanpipe/leanpipe/stream"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Shared are the JetStream objects Ensure made sure of.
type Shared struct {
	Jobs, Results, Dead jetstream.Stream
	Workers             jetstream.Consumer
	Proofs              jetstream.ObjectStore
}

// streamConfigs are the three streams' settings.
func streamConfigs() []jetstream.StreamConfig {
	return []jetstream.StreamConfig{{
		Name:        JobsStream,
		Description: "leanpipe jobs: a work queue, each job kept until a worker acks or terminates it",
		Subjects:    []string{JobsSubject + ">"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		MaxMsgSize:  stream.MaxLineBytes,
		Duplicates:  2 * time.Minute,
	}, {
		Name:        ResultsStream,
		Description: "leanpipe results: one message per finished job, kept 24 h",
		Subjects:    []string{ResultsSubject + ">"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      ResultsMaxAge,
		Duplicates:  2 * time.Minute,
	}, {
		Name:        DeadStream,
		Description: "leanpipe dead letters: jobs delivered more than MaxDeliver times, kept 7 days",
		Subjects:    []string{DeadSubject + ">"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      DeadMaxAge,
		Duplicates:  2 * time.Minute,
	}}
}

// consumerConfig is the workers' durable pull consumer. Workers prove deliveries 1
// to MaxDeliver; a later delivery is dead-lettered, without proving, by the worker
// that receives it. The server delivers a job at most MaxDeliver+2 times, so that
// dead-lettering itself gets a second chance.
func consumerConfig(o Options) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       Consumer,
		Description:   "leanpipe workers",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.AckWait,
		MaxDeliver:    o.MaxDeliver + 2,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		FilterSubject: JobsSubject + ">",
	}
}

// Ensure creates, or updates to these settings, the jobs, results and dead-letter
// streams, the workers' consumer and the proofs bucket (see the package doc for
// their retention). It retries while the server or its JetStream is not reachable,
// until ctx ends.
func Ensure(ctx context.Context, js jetstream.JetStream, o Options) (Shared, error) {
	o = o.withDefaults()
	var sh Shared
	err := retry(ctx, func(ctx context.Context) error {
		var ss []jetstream.Stream
		for _, cfg := range streamConfigs() {
			s, err := ensureStream(ctx, js, cfg)
			if err != nil {
				return fmt.Errorf("stream %s: %w", cfg.Name, err)
			}
			ss = append(ss, s)
		}
		sh.Jobs, sh.Results, sh.Dead = ss[0], ss[1], ss[2]
		c, err := ensureConsumer(ctx, js, consumerConfig(o))
		if err != nil {
			return fmt.Errorf("consumer %s: %w", Consumer, err)
		}
		sh.Workers = c
		b, err := ensureBucket(ctx, js, jetstream.ObjectStoreConfig{
			Bucket:      Bucket,
			Description: "leanpipe proofs and their statements, by job id, kept 7 days",
			TTL:         ProofsTTL,
			Storage:     jetstream.FileStorage,
		})
		if err != nil {
			return fmt.Errorf("bucket %s: %w", Bucket, err)
		}
		sh.Proofs = b
		return nil
	}, 0)
	if err != nil {
		return Shared{}, fmt.Errorf("queue: ensuring the JetStream objects: %w", err)
	}
	return sh, nil
}

// ensureStream, ensureConsumer and ensureBucket read the object first and write
// it only when it is missing or its settings differ: workers starting together
// then send the server no concurrent updates.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, cfg.Name)
	if err == nil {
		c := s.CachedInfo().Config
		if c.Description == cfg.Description && slices.Equal(c.Subjects, cfg.Subjects) && c.Retention == cfg.Retention &&
			c.Storage == cfg.Storage && c.MaxMsgSize == cfg.MaxMsgSize && c.MaxAge == cfg.MaxAge && c.Duplicates == cfg.Duplicates {
			return s, nil
		}
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, err
	}
	return js.CreateOrUpdateStream(ctx, cfg)
}

func ensureConsumer(ctx context.Context, js jetstream.JetStream, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	c, err := js.Consumer(ctx, JobsStream, cfg.Durable)
	if err == nil {
		g := c.CachedInfo().Config
		if g.Description == cfg.Description && g.AckPolicy == cfg.AckPolicy && g.AckWait == cfg.AckWait &&
			g.MaxDeliver == cfg.MaxDeliver && g.DeliverPolicy == cfg.DeliverPolicy && g.FilterSubject == cfg.FilterSubject {
			return c, nil
		}
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, err
	}
	return js.CreateOrUpdateConsumer(ctx, JobsStream, cfg)
}

func ensureBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	b, err := js.ObjectStore(ctx, cfg.Bucket)
	if err == nil {
		st, err := b.Status(ctx)
		if err != nil {
			return nil, err
		}
		if st.Description() == cfg.Description && st.TTL() == cfg.TTL && st.Storage() == cfg.Storage {
			return b, nil
		}
	} else if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, err
	}
	return js.CreateOrUpdateObjectStore(ctx, cfg)
}

// transient reports whether err may go away by itself (the server is restarting,
// JetStream is not up yet, a request timed out).
func transient(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		// 503 and 5xx-style codes: JetStream not ready, cluster unavailable.
		return apiErr.Code >= 500
	}
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrDisconnected) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrJetStreamNotEnabled) ||
		errors.Is(err, jetstream.ErrServerShutdown) || errors.Is(err, nats.ErrNoServers)
}

// retry calls fn, each call with a 5 s deadline, until it succeeds, fails with an
// error that is not transient, ctx ends, or (when window > 0) window has passed.
func retry(ctx context.Context, fn func(context.Context) error, window time.Duration) error {
	wait := 50 * time.Millisecond
	var end time.Time
	if window > 0 {
		end = time.Now().Add(window)
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := fn(cctx)
		cancel()
		if err == nil || !transient(err) {
			return err
		}
		if !end.IsZero() && time.Now().After(end) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", context.Cause(ctx), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
